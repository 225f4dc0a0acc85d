import type { TenantSettings } from "../../shared/schemas/tenant";
import { isCssColor } from "../../shared/schemas/tenant";
import { readableOn, themeOf } from "../../shared/theme";

type Branding = TenantSettings["branding"];

const safe = (value: string, fallback: string) => (isCssColor(value) ? value : fallback);

/**
 * A small likeness of the tenant's site header, a button and the text colours, as the site will
 * draw them from the colours as typed (fills as picked, text in its readable shades), so staff see
 * a change before they save it.
 */
export function BrandPreview({ branding }: { branding: Branding }) {
  const primary = safe(branding.primaryColor, "#4a90e2");
  const background = safe(branding.backgroundColor, "#ffffff");
  const secondary = safe(branding.secondaryColor, "#f5a623");
  const theme = themeOf({
    primaryColor: primary,
    secondaryColor: secondary,
    accentColor: safe(branding.accentColor, primary),
    textColor: safe(branding.textColor, "#1f2933"),
    backgroundColor: background,
    errorColor: safe(branding.errorColor, "#c62828"),
    successColor: safe(branding.successColor, "#2e7d32"),
  });
  const text = theme.text;
  const radius = /^(?:0|\d{1,3}(?:\.\d{1,3})?(?:px|rem|em|%))$/.test(branding.borderRadius)
    ? branding.borderRadius
    : "8px";
  const font = /^[\w\s,"'.-]+$/.test(branding.fontFamily) ? branding.fontFamily : "inherit";
  const logo = /^(https?:\/\/|\/(?!\/))[^\s"'<>()\\]*$/i.test(branding.logoUrl)
    ? branding.logoUrl
    : "";
  return (
    <figure
      aria-label="Live preview of the branding"
      className="overflow-hidden rounded-brand border border-black/15 shadow-sm"
      style={{ background, color: text, fontFamily: font }}
    >
      <div
        className="flex items-center justify-between gap-3 px-4 py-3"
        style={{ borderBottom: `4px solid ${primary}` }}
      >
        <span className="flex items-center gap-2 font-bold">
          {logo ? <img src={logo} alt="" className="h-7 w-auto" /> : null}
          {branding.companyName || "Company name"}
        </span>
        <span className="hidden gap-3 text-sm sm:flex" aria-hidden="true">
          <span>Home</span>
          <span>About</span>
          <span>Contact</span>
        </span>
      </div>
      <div className="space-y-3 px-4 py-5">
        {/* A sample of the brand's type, not a heading of the staff page: it stays out of the
            page's outline (axe's p-as-heading asks a styled <p> to be one or the other). */}
        <strong className="block text-lg font-semibold">Join our newsletter</strong>
        <p className="text-sm">
          Body text in the text colour, with{" "}
          <span style={{ color: readableOn(safe(branding.accentColor, primary), background) }}>
            an accent
          </span>
          , <span style={{ color: theme.error }}>an error</span> and{" "}
          <span style={{ color: theme.success }}>a success</span> message.
        </p>
        <div className="flex flex-wrap gap-2">
          <span
            className="inline-block px-4 py-2 font-semibold"
            style={{ background: primary, color: theme.onPrimary, borderRadius: radius }}
          >
            Subscribe
          </span>
          <span
            className="inline-block px-4 py-2 font-semibold"
            style={{ background: secondary, color: theme.onSecondary, borderRadius: radius }}
          >
            Secondary
          </span>
        </div>
      </div>
      <figcaption className="border-t border-black/10 px-4 py-2 text-xs" style={{ color: text }}>
        {branding.companyAddress || "Company address"}
      </figcaption>
    </figure>
  );
}
