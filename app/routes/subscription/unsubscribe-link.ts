import { redirect } from "react-router";
import type { Route } from "./+types/unsubscribe-link";

/** /unsubscribe?email=… is the fixed link in mail (SPEC §2): the page lives under /subscription. */
export function loader({ url }: Route.LoaderArgs) {
  return redirect(`/subscription/unsubscribe${url.search}`, 302);
}
