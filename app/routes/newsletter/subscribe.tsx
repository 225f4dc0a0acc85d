export default function Placeholder() {
  return <main>Coming in this issue.</main>;
}
