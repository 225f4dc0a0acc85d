import { scopeOf } from "../../../server/http/context";
import { textOn } from "../../../shared/theme";
import type { Route } from "./+types/favicon";

const escapeXml = (text: string) => text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** A tenant's default favicon: its initial on its primary colour, used when no favicon is set. */
export function loader({ context }: Route.LoaderArgs) {
  const { branding } = scopeOf(context).tenant;
  const initial = escapeXml(branding.companyName.charAt(0).toUpperCase() || "H");
  const fill = escapeXml(branding.primaryColor);
  const ink = textOn(branding.primaryColor);
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64"><rect width="64" height="64" rx="12" fill="${fill}"/><text x="32" y="44" font-family="Arial, sans-serif" font-size="36" font-weight="700" text-anchor="middle" fill="${ink}">${initial}</text></svg>`;
  return new Response(svg, {
    headers: {
      "Content-Type": "image/svg+xml",
      "Cache-Control": "public, max-age=3600",
      Vary: "Host, Cookie",
    },
  });
}
