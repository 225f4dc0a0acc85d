import { redirect } from "react-router";
import { safeRedirectPath } from "../../../server/auth/permissions";
import type { Route } from "./+types/login-redirect";

/** /login (SPEC §2): where guards send visitors; sign-in itself lives at /admin/login. */
export function loader({ url }: Route.LoaderArgs) {
  const back = safeRedirectPath(url.searchParams.get("redirectTo"));
  return redirect(back ? `/admin/login?redirectTo=${encodeURIComponent(back)}` : "/admin/login");
}
