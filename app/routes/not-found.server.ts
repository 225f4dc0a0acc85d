// The loader of not-found.tsx.
import { data, redirect } from "react-router";
import { scopeOf } from "../../server/http/context";
import { oldNewsletterAddress } from "../../server/newsletters/old-addresses";
import type { Route } from "./+types/not-found";

/** Nothing here; but an imported newsletter's old Ghost or Substack address moves on (301). */
export async function loader({ url, context }: Route.LoaderArgs) {
  const moved = await oldNewsletterAddress(scopeOf(context), url.pathname);
  if (moved) throw redirect(moved, 301);
  return data(null, { status: 404 });
}
