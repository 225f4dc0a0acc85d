import { redirect } from "react-router";
import type { Route } from "./+types/unsubscribe-link";

/** /unsubscribe?email=… is the fixed link in mail (SPEC §2): the page lives under /subscription. */
export function loader({ request }: Route.LoaderArgs) {
  return redirect(`/subscription/unsubscribe${new URL(request.url).search}`, 302);
}
