import { scopeOf } from "../../../server/http/context";
import { renderRobotsTxt } from "../../../server/newsletters/feeds";
import type { Route } from "./+types/robots";

/** /robots.txt: everything public may be crawled; the admin and subscription pages may not. */
export function loader({ context }: Route.LoaderArgs) {
  return new Response(renderRobotsTxt(scopeOf(context).origin), {
    headers: {
      "Content-Type": "text/plain; charset=utf-8",
      "Cache-Control": "public, max-age=3600",
    },
  });
}
