import { colord, extend } from "colord";
import a11yPlugin from "colord/plugins/a11y";
import type { TenantConfig } from "./config";

extend([a11yPlugin]);

const AA_NORMAL_TEXT = 4.5;

/**
 * The colour to use for text or a button on `background`: the brand colour itself when it already
 * meets WCAG AA against it, else the brand colour darkened (or lightened, on a dark background)
 * until it does. Tenants pick colours for their looks; readers still need to read.
 */
export function readableOn(color: string, background: string): string {
  let candidate = colord(color);
  const bg = colord(background);
  if (!candidate.isValid() || !bg.isValid()) return color;
  const darken = bg.isLight();
  for (let i = 0; i < 30 && candidate.contrast(bg) < AA_NORMAL_TEXT; i++) {
    // Round to hex at each step: the colour that ships is the hex one.
    candidate = colord((darken ? candidate.darken(0.04) : candidate.lighten(0.04)).toHex());
  }
  // A mid-grey background may allow no shade of the colour: fall back to black or white.
  return candidate.contrast(bg) >= AA_NORMAL_TEXT ? candidate.toHex() : textOn(background);
}

/** Black or white, whichever reads better on `background`. */
export function textOn(background: string): string {
  const bg = colord(background);
  if (!bg.isValid()) return "#ffffff";
  return bg.contrast("#ffffff") >= bg.contrast("#111111") ? "#ffffff" : "#111111";
}

export { isCssColor } from "../../shared/schemas/tenant";

/**
 * The CSS custom properties rendered on <html> for a tenant: every branding colour, the font and
 * the radius, plus derived accessible variants used for text, links and buttons.
 */
export function brandingCssVariables(branding: TenantConfig["branding"]): Record<string, string> {
  const background = branding.backgroundColor;
  const primaryStrong = readableOn(branding.primaryColor, background);
  const secondaryStrong = readableOn(branding.secondaryColor, background);
  const variables: Record<string, string> = {
    "--brand-primary": branding.primaryColor,
    "--brand-secondary": branding.secondaryColor,
    "--brand-accent": branding.accentColor,
    "--brand-text": branding.textColor,
    "--brand-background": background,
    "--brand-error": readableOn(branding.errorColor, background),
    "--brand-success": readableOn(branding.successColor, background),
    "--brand-radius": branding.borderRadius,
    "--brand-font": branding.fontFamily,
    "--brand-primary-strong": primaryStrong,
    "--brand-on-primary-strong": textOn(primaryStrong),
    "--brand-secondary-strong": secondaryStrong,
    "--brand-on-primary": textOn(branding.primaryColor),
    "--brand-on-secondary": textOn(branding.secondaryColor),
    "--brand-on-accent": textOn(branding.accentColor),
  };
  // Values end up in a style attribute: nothing may close the declaration or the attribute.
  for (const name of Object.keys(variables)) {
    variables[name] = variables[name].replace(/[;{}<>\\]/g, "");
  }
  return variables;
}
