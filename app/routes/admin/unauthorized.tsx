import { data } from "react-router";
import { userContext } from "../../../server/http/context";
import { AccessDenied } from "../../components/access-denied";
import { noindexMeta } from "../../lib/meta";
import type { Route } from "./+types/unauthorized";

/** /unauthorized (SPEC §2): a signed-in member of staff without the rights for a page. */
export function loader({ context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  return data({ email: user?.email ?? null }, { status: 403 });
}

export const meta: Route.MetaFunction = () => noindexMeta("Access denied");

export default function Unauthorized({ loaderData }: Route.ComponentProps) {
  return <AccessDenied email={loaderData.email} detail="Only super admins may manage tenants." />;
}
