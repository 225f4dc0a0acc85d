import { colord, extend } from "colord";
import a11yPlugin from "colord/plugins/a11y";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { brandingCssVariables, isCssColor, readableOn, textOn } from "./branding";
import { DEFAULT_TENANT_CONFIG } from "./config";

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
