import type { Route } from "./+types/subscribe";
import { embedSubscribe } from "./pages.server";

/** GET: nothing to show here; the form is /embed/form. */
export function loader() {
  return new Response("Method Not Allowed", { status: 405, headers: { Allow: "POST" } });
}

/** POST /embed/subscribe: the embedded sign-up form's handler (snippet and iframe alike). */
export async function action({ request, context }: Route.ActionArgs) {
  return embedSubscribe(request, context);
}
