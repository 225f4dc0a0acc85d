export default function Page() {
  return <main>services</main>;
}
