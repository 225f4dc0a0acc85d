export default function Page() {
  return <main>terms</main>;
}
