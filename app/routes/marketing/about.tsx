export default function Page() {
  return <main>about</main>;
}
