export default function Page() {
  return <main>newsletter</main>;
}
