export default function Page() {
  return <main>products</main>;
}
