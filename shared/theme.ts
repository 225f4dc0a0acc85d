import { colord, extend } from "colord";
import a11yPlugin from "colord/plugins/a11y";
import type { TenantSettings } from "./schemas/tenant";

extend([a11yPlugin]);

/*
 * A tenant's theme from the colours it picks (issue 17, target 6). Tenants choose colours for their
 * looks; the site derives from them the shades it draws text, links, focus rings and tints with, so
 * every pair meets WCAG 2.2 AA — 4.5:1 for text, 3:1 for interface parts — whatever was picked. The
 * tenant manager shows the contrast of the pairs as typed (`brandContrast`) and warns before saving
 * one that fails. Shared: the server renders the variables, the manager computes the same figures
 * live in the browser.
 */

export const TEXT_CONTRAST = 4.5;
export const UI_CONTRAST = 3;

type Branding = Pick<
  TenantSettings["branding"],
  | "primaryColor"
  | "secondaryColor"
  | "accentColor"
  | "textColor"
  | "backgroundColor"
  | "errorColor"
  | "successColor"
>;

/**
 * `color` at `alpha` over `background`, as the browser composites it (per sRGB channel): the
 * colour of a tinted panel such as Tailwind's `bg-brand/10`.
 */
export function tintOf(color: string, background: string, alpha: number): string {
  const fg = colord(color).toRgb();
  const bg = colord(background).toRgb();
  const blend = (a: number, b: number) => Math.round(b * (1 - alpha) + a * alpha);
  return colord({ r: blend(fg.r, bg.r), g: blend(fg.g, bg.g), b: blend(fg.b, bg.b) }).toHex();
}

export function contrastOf(foreground: string, background: string): number {
  const fg = colord(foreground);
  const bg = colord(background);
  return fg.isValid() && bg.isValid() ? fg.contrast(bg) : 1;
}

/** Black or white (a soft black when it reads as well), whichever reads better on `background`. */
export function textOn(background: string): string {
  const bg = colord(background);
  if (!bg.isValid()) return "#ffffff";
  if (bg.contrast("#ffffff") >= bg.contrast("#000000")) return "#ffffff";
  // On a mid tone the soft black may fall short where pure black does not.
  return bg.contrast("#111111") >= TEXT_CONTRAST ? "#111111" : "#000000";
}

/**
 * The colour to use for text or a link on `background` (and on each of `alsoOn`, the tints it is
 * drawn on): the colour itself when it already meets `needed`, else the colour darkened (or
 * lightened, on a dark background) until it does; black or white when no shade will do.
 */
export function readableOn(
  color: string,
  background: string,
  alsoOn: readonly string[] = [],
  needed = TEXT_CONTRAST,
): string {
  let candidate = colord(color);
  const bg = colord(background);
  if (!candidate.isValid() || !bg.isValid()) return color;
  const grounds = [background, ...alsoOn];
  const worst = (shade: string) => Math.min(...grounds.map((each) => contrastOf(shade, each)));
  const darken = bg.isLight();
  for (let i = 0; i < 30 && worst(candidate.toHex()) < needed; i++) {
    // Round to hex at each step: the colour that ships is the hex one.
    candidate = colord((darken ? candidate.darken(0.04) : candidate.lighten(0.04)).toHex());
  }
  if (worst(candidate.toHex()) >= needed) return candidate.toHex();
  // A mid-grey background may allow no shade of the colour: the best of black and white.
  const plain = [textOn(background), "#000000", "#ffffff"];
  return (
    plain.find((shade) => worst(shade) >= needed) ??
    plain.reduce((best, shade) => (worst(shade) > worst(best) ? shade : best))
  );
}

/**
 * The tints the pages draw text on (Tailwind opacity modifiers over the background), the densest
 * of each colour used; shared/theme.test.ts checks the pages use none denser.
 */
export const TINTS = { brand: 0.2, secondary: 0.25, danger: 0.15, ok: 0.15, black: 0.15 } as const;

export interface Theme {
  /** body text, on the background and on every tint */
  text: string;
  /** links, outlined buttons, focus rings: the primary colour as dark (or light) as it must be */
  primaryStrong: string;
  onPrimary: string;
  onPrimaryStrong: string;
  secondaryStrong: string;
  onSecondary: string;
  onAccent: string;
  error: string;
  success: string;
}

/** The readable shades of a tenant's colours (the CSS variables are made of these). */
export function themeOf(branding: Branding): Theme {
  const background = branding.backgroundColor;
  const tint = (color: string, alpha: number) =>
    colord(color).isValid() && colord(background).isValid()
      ? tintOf(color, background, alpha)
      : background;
  // Error and success text sits on the background and on its own tint.
  const onOwnTint = (color: string, alpha: number) => {
    // Its tint darkens as it does: settle on a shade that reads on the tint of itself.
    let shade = readableOn(color, background);
    for (let i = 0; i < 5; i++) {
      const next = readableOn(shade, background, [tint(shade, alpha)]);
      if (next === shade) break;
      shade = next;
    }
    return shade;
  };
  const error = onOwnTint(branding.errorColor, TINTS.danger);
  const success = onOwnTint(branding.successColor, TINTS.ok);
  const tints = [
    tint(branding.primaryColor, TINTS.brand),
    tint(branding.secondaryColor, TINTS.secondary),
    tint(error, TINTS.danger),
    tint(success, TINTS.ok),
    tint("#000000", TINTS.black),
  ];
  const primaryStrong = readableOn(branding.primaryColor, background, [tints[0] ?? background]);
  return {
    text: readableOn(branding.textColor, background, tints),
    primaryStrong,
    onPrimary: textOn(branding.primaryColor),
    onPrimaryStrong: textOn(primaryStrong),
    secondaryStrong: readableOn(branding.secondaryColor, background),
    onSecondary: textOn(branding.secondaryColor),
    onAccent: textOn(branding.accentColor),
    error,
    success,
  };
}

/**
 * The CSS custom properties rendered on <html> for a tenant: every branding colour, the font and
 * the radius, plus the readable shades the pages use for text, links, buttons and focus rings.
 */
export function brandingCssVariables(branding: TenantSettings["branding"]): Record<string, string> {
  // Every page renders them; a tenant's configuration object lives until it changes.
  let variables = variablesOf.get(branding);
  if (!variables) {
    variables = computeVariables(branding);
    variablesOf.set(branding, variables);
  }
  return variables;
}

const variablesOf = new WeakMap<TenantSettings["branding"], Record<string, string>>();

function computeVariables(branding: TenantSettings["branding"]): Record<string, string> {
  const theme = themeOf(branding);
  const variables: Record<string, string> = {
    "--brand-primary": branding.primaryColor,
    "--brand-secondary": branding.secondaryColor,
    "--brand-accent": branding.accentColor,
    "--brand-text": theme.text,
    "--brand-background": branding.backgroundColor,
    "--brand-error": theme.error,
    "--brand-success": theme.success,
    "--brand-radius": branding.borderRadius,
    "--brand-font": branding.fontFamily,
    "--brand-primary-strong": theme.primaryStrong,
    "--brand-on-primary-strong": theme.onPrimaryStrong,
    "--brand-secondary-strong": theme.secondaryStrong,
    "--brand-on-primary": theme.onPrimary,
    "--brand-on-secondary": theme.onSecondary,
    "--brand-on-accent": theme.onAccent,
  };
  // Values end up in a style attribute: nothing may close the declaration or the attribute.
  for (const name of Object.keys(variables)) {
    variables[name] = (variables[name] ?? "").replace(/[;{}<>\\]/g, "");
  }
  return variables;
}

export interface ContrastCheck {
  /** what the pair is, in the tenant manager's words */
  label: string;
  foreground: string;
  background: string;
  /** the contrast ratio, rounded to two decimals */
  ratio: number;
  /** 4.5 for text, 3 for interface parts */
  needed: number;
  passes: boolean;
  /** the colour the site draws instead when the pair fails */
  used: string;
}

/** The pairs a tenant's colours make, as typed, with their contrast and the shade used instead. */
export function brandContrast(branding: Branding): ContrastCheck[] {
  const background = branding.backgroundColor;
  const theme = themeOf(branding);
  const check = (
    label: string,
    foreground: string,
    on: string,
    needed: number,
    used: string,
  ): ContrastCheck => {
    const ratio = Math.floor(contrastOf(foreground, on) * 100) / 100;
    return { label, foreground, background: on, ratio, needed, passes: ratio >= needed, used };
  };
  // The tinted panel the text colour reads worst on (a tint of the primary, the secondary…).
  const panels = [
    tintOf(branding.primaryColor, background, TINTS.brand),
    tintOf(branding.secondaryColor, background, TINTS.secondary),
  ].filter(() => colord(background).isValid());
  const panel = panels.reduce(
    (worst, each) =>
      contrastOf(branding.textColor, each) < contrastOf(branding.textColor, worst) ? each : worst,
    background,
  );
  const valid = (each: ContrastCheck) =>
    colord(each.foreground).isValid() && colord(each.background).isValid();
  // A colour that is not one is the form's error to report, not a contrast.
  return [
    check("Text on the background", branding.textColor, background, TEXT_CONTRAST, theme.text),
    check("Text on tinted panels", branding.textColor, panel, TEXT_CONTRAST, theme.text),
    check(
      "Links and outlined buttons (primary) on the background",
      branding.primaryColor,
      background,
      TEXT_CONTRAST,
      theme.primaryStrong,
    ),
    check(
      "Secondary on the background (badges, borders)",
      branding.secondaryColor,
      background,
      UI_CONTRAST,
      theme.secondaryStrong,
    ),
    check(
      "Accent on the background (highlights)",
      branding.accentColor,
      background,
      UI_CONTRAST,
      readableOn(branding.accentColor, background, [], UI_CONTRAST),
    ),
    check(
      "Error messages on the background",
      branding.errorColor,
      background,
      TEXT_CONTRAST,
      theme.error,
    ),
    check(
      "Success messages on the background",
      branding.successColor,
      background,
      TEXT_CONTRAST,
      theme.success,
    ),
  ].filter(valid);
}

/** Said when staff save colours that make a failing pair, until they confirm. */
export const CONTRAST_WARNING =
  "Some colour pairs are below WCAG AA contrast. The site will draw them in the readable shades shown; tick the box to save these colours anyway.";

/** The pairs below AA that `next` makes and `before` did not (a colour of the pair changed). */
export function newlyFailing(next: Branding, before: Branding): ContrastCheck[] {
  const earlier = new Map(brandContrast(before).map((check) => [check.label, check]));
  return brandContrast(next).filter((check) => {
    const was = earlier.get(check.label);
    const same =
      was?.foreground.toLowerCase() === check.foreground.toLowerCase() &&
      was?.background.toLowerCase() === check.background.toLowerCase();
    return !check.passes && !same;
  });
}

export { isCssColor } from "./schemas/tenant";
