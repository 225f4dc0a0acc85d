import { redirect } from "react-router";
import type { Route } from "./+types/preferences-link";

/** /preferences?email=… is the fixed link in mail (SPEC §2): the page lives under /subscription. */
export function loader({ request }: Route.LoaderArgs) {
  return redirect(`/subscription/preferences${new URL(request.url).search}`, 302);
}
