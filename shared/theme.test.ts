import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { colord, extend } from "colord";
import a11yPlugin from "colord/plugins/a11y";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_TENANT_CONFIG } from "../server/tenants/config";
import {
  brandContrast,
  brandingCssVariables,
  contrastOf,
  isCssColor,
  readableOn,
  TEXT_CONTRAST,
  TINTS,
  textOn,
  themeOf,
  tintOf,
  UI_CONTRAST,
} from "./theme";

extend([a11yPlugin]);

describe("branding CSS variables", () => {
  it("sets a variable for every branding colour, the font and the radius", () => {
    const variables = brandingCssVariables(DEFAULT_TENANT_CONFIG.branding);
    expect(variables).toMatchObject({
      "--brand-primary": "#4a90e2",
      "--brand-secondary": "#f5a623",
      "--brand-accent": "#50e3c2",
      "--brand-text": "#1f2933",
      "--brand-background": "#ffffff",
      "--brand-radius": "8px",
    });
    expect(variables["--brand-font"]).toContain("system-ui");
    expect(variables["--brand-error"]).toBeDefined();
    expect(variables["--brand-success"]).toBeDefined();
  });

  it("strips characters that could end the declaration or the attribute", () => {
    const variables = brandingCssVariables({
      ...DEFAULT_TENANT_CONFIG.branding,
      primaryColor: 'red;background:url(x)}"><script>',
    });
    expect(variables["--brand-primary"]).not.toMatch(/[;{}<>]/);
  });
});

describe("readableOn", () => {
  it("keeps a colour that already meets AA", () => {
    expect(readableOn("#1b365d", "#ffffff")).toBe("#1b365d");
  });

  it("darkens a light brand colour until text in it meets AA on white", () => {
    const strong = readableOn("#4a90e2", "#ffffff");
    expect(colord(strong).contrast("#ffffff")).toBeGreaterThanOrEqual(4.5);
  });

  it("meets AA for any brand colour on white or black backgrounds", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 0xffffff }),
        fc.constantFrom("#ffffff", "#000000"),
        (rgb, bg) => {
          const color = `#${rgb.toString(16).padStart(6, "0")}`;
          expect(colord(readableOn(color, bg)).contrast(bg)).toBeGreaterThanOrEqual(4.5);
        },
      ),
    );
  });
});

describe("textOn and isCssColor", () => {
  it("picks the more readable of black and white", () => {
    expect(textOn("#1b365d")).toBe("#ffffff");
    expect(textOn("#f5a623")).toBe("#111111");
  });

  it("recognises CSS colours", () => {
    expect(isCssColor("#4a90e2")).toBe(true);
    expect(isCssColor("rgb(10, 20, 30)")).toBe(true);
    expect(isCssColor("not a colour")).toBe(false);
  });
});

const hex = fc
  .integer({ min: 0, max: 0xffffff })
  .map((rgb) => `#${rgb.toString(16).padStart(6, "0")}`);

describe("the theme of any tenant's colours (issue 17, target 6)", () => {
  it("draws text, links, buttons and messages at WCAG AA on the background and on every tint", () => {
    fc.assert(
      fc.property(
        fc.record({
          primaryColor: hex,
          secondaryColor: hex,
          accentColor: hex,
          textColor: hex,
          // A light or a dark page (12:1 against black or white): on a mid tone no colour may
          // reach AA on both the page and its tints, and the tenant manager says so.
          backgroundColor: hex.filter(
            (color) => contrastOf(color, "#000000") >= 12 || contrastOf(color, "#ffffff") >= 12,
          ),
          errorColor: hex,
          successColor: hex,
        }),
        (branding) => {
          const theme = themeOf(branding);
          const bg = branding.backgroundColor;
          const tints = [
            tintOf(branding.primaryColor, bg, 0.2),
            tintOf(branding.secondaryColor, bg, 0.25),
            tintOf(theme.error, bg, 0.15),
            tintOf(theme.success, bg, 0.15),
            tintOf("#000000", bg, 0.15),
          ];
          const atLeast = (fg: string, on: string, needed: number) =>
            expect(contrastOf(fg, on), `${fg} on ${on}`).toBeGreaterThanOrEqual(needed);
          for (const ground of [bg, ...tints]) atLeast(theme.text, ground, TEXT_CONTRAST);
          for (const ground of [bg, tints[0] as string]) {
            atLeast(theme.primaryStrong, ground, TEXT_CONTRAST);
          }
          // The focus ring is the strong primary: an interface part needs 3:1.
          atLeast(theme.primaryStrong, bg, UI_CONTRAST);
          atLeast(theme.onPrimary, branding.primaryColor, TEXT_CONTRAST);
          atLeast(theme.onPrimaryStrong, theme.primaryStrong, TEXT_CONTRAST);
          atLeast(theme.onSecondary, branding.secondaryColor, TEXT_CONTRAST);
          atLeast(theme.secondaryStrong, bg, TEXT_CONTRAST);
          atLeast(theme.error, bg, TEXT_CONTRAST);
          atLeast(theme.error, tintOf(theme.error, bg, 0.15), TEXT_CONTRAST);
          atLeast(theme.success, bg, TEXT_CONTRAST);
        },
      ),
      { numRuns: 500 },
    );
  });

  it("keeps the colours as picked when they already meet AA", () => {
    const theme = themeOf({
      primaryColor: "#1b365d",
      secondaryColor: "#5c3d00",
      accentColor: "#004d40",
      textColor: "#111111",
      backgroundColor: "#ffffff",
      errorColor: "#a00000",
      successColor: "#1b5e20",
    });
    expect(theme).toMatchObject({
      text: "#111111",
      primaryStrong: "#1b365d",
      error: "#a00000",
      success: "#1b5e20",
    });
  });

  it("reports the pairs as typed: the default blue fails on white, and the site uses a darker one", () => {
    const checks = brandContrast(DEFAULT_TENANT_CONFIG.branding);
    const primary = checks.find((check) => check.label.startsWith("Links"));
    expect(primary).toMatchObject({ foreground: "#4a90e2", background: "#ffffff", passes: false });
    expect(primary?.ratio).toBeCloseTo(3.34, 1);
    expect(contrastOf(primary?.used ?? "", "#ffffff")).toBeGreaterThanOrEqual(TEXT_CONTRAST);
    const text = checks.find((check) => check.label.startsWith("Text"));
    expect(text).toMatchObject({ passes: true, used: "#1f2933" });
  });

  it("knows the densest tint the pages draw with", () => {
    const names = {
      brand: "brand",
      secondary: "secondary",
      danger: "danger",
      ok: "ok",
      black: "black",
    };
    const files = readdirSync("app", { recursive: true, encoding: "utf8" }).filter((file) =>
      file.endsWith(".tsx"),
    );
    const used = files.flatMap((file) =>
      [
        ...readFileSync(join("app", file), "utf8").matchAll(
          /(?<!backdrop:)bg-(brand|secondary|danger|ok|black)\/(\d+)/g,
        ),
      ].map((match) => ({
        file,
        color: match[1] as keyof typeof names,
        alpha: Number(match[2]) / 100,
      })),
    );
    expect(used.length).toBeGreaterThan(10);
    for (const each of used)
      expect(each.alpha, `${each.file}: bg-${each.color}`).toBeLessThanOrEqual(TINTS[each.color]);
  });

  it("composites a tint as the browser does", () => {
    expect(tintOf("#000000", "#ffffff", 0.1)).toBe("#e6e6e6");
    expect(tintOf("#ff0000", "#ffffff", 0.5)).toBe("#ff8080");
  });
});
