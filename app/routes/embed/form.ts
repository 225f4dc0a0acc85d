import type { Route } from "./+types/form";
import { embedFormPage } from "./pages.server";

/** GET /embed/form: the sign-up form for another site's iframe (issue 35), no script, no chrome. */
export async function loader({ request, context }: Route.LoaderArgs) {
  return embedFormPage(request, context);
}
