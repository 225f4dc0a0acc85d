import { redirect } from "react-router";
import type { Route } from "./+types/preferences-link";

/** /preferences?email=… is the fixed link in mail (SPEC §2): the page lives under /subscription. */
export function loader({ url }: Route.LoaderArgs) {
  return redirect(`/subscription/preferences${url.search}`, 302);
}
