import { noindexMeta } from "../lib/meta";
import { Link } from "../lib/page-scripts";
import type { Route } from "./+types/not-found";

export { loader } from "./not-found.server";

export const meta: Route.MetaFunction = () => noindexMeta("Page not found");

export default function NotFound() {
  return (
    <main className="mx-auto max-w-2xl px-6 py-24 text-center">
      <p className="text-sm font-semibold uppercase tracking-wider text-brand-strong">404</p>
      <h1 className="mt-2 text-3xl font-bold sm:text-4xl">Page not found</h1>
      <p className="mt-4 text-lg">The page you are looking for does not exist or has moved.</p>
      <p className="mt-8 flex flex-wrap justify-center gap-4">
        <Link to="/" className="font-semibold">
          Back to the home page
        </Link>
        <Link to="/contact" className="font-semibold">
          Contact us
        </Link>
      </p>
    </main>
  );
}
