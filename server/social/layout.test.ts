import { describe, expect, it } from "vitest";
import { scaled } from "../../tests/support/timing";
import { loadFaces, measure } from "./fonts";
import { fitText, wrapLines } from "./layout";

describe("text set in a box with the project's font", () => {
  it("wraps by measured widths, and every word comes through whole", async () => {
    const { bold } = await loadFaces();
    const text =
      "Defensible collection in a world of ephemeral messaging: what courts expect from legal holds";
    const lines = wrapLines(bold, text, 64, 600);
    expect(lines.length).toBeGreaterThan(2);
    expect(lines.join(" ")).toBe(text);
    for (const line of lines) expect(measure(bold, line, 64)).toBeLessThanOrEqual(600);
    // "W" is wider than "i" in Inter: widths are measured, not counted.
    expect(measure(bold, "WWWW", 40)).toBeGreaterThan(2 * measure(bold, "iiii", 40));
  });

  it("breaks a word wider than the box between letters, losing none", async () => {
    const { regular } = await loadFaces();
    const word = "Rechtsschutzversicherungsgesellschaften".repeat(3);
    const lines = wrapLines(regular, word, 48, 400);
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.join("")).toBe(word);
    for (const line of lines) expect(measure(regular, line, 48)).toBeLessThanOrEqual(400);
  });

  it("lowers the size until the text fits, and says when it cannot", async () => {
    const { bold } = await loadFaces();
    const style = { face: bold, max: 80, min: 24, leading: 1.2 };
    const short = fitText("Five things", { width: 900, height: 400 }, style);
    expect(short?.size).toBe(80);
    const long = fitText("word ".repeat(60), { width: 900, height: 400 }, style);
    expect(long?.size).toBeLessThan(80);
    expect(long?.height).toBeLessThanOrEqual(400);
    expect(long?.width).toBeLessThanOrEqual(900);
    expect(long?.lines.join(" ")).toBe("word ".repeat(60).trim());
    expect(fitText("word ".repeat(2000), { width: 900, height: 400 }, style)).toBeNull();
  });

  // Issue 44, finding 3: a huge blockquote or title took 10–19 s of measuring.
  it("gives up fast on text that cannot fit, however long", async () => {
    const { bold } = await loadFaces();
    const style = { face: bold, max: 96, min: 36, leading: 1.2 };
    const box = { width: 900, height: 700 };
    for (const text of ["quote ".repeat(200_000), "x".repeat(1_000_000), "word ".repeat(900)]) {
      const started = performance.now();
      expect(fitText(text, box, style)).toBeNull();
      expect(performance.now() - started).toBeLessThan(scaled(300));
    }
    // What fits is set as before: every word, within the box.
    const fits = fitText("word ".repeat(40), box, style);
    expect(fits?.lines.join(" ")).toBe("word ".repeat(40).trim());
    expect(fits?.height).toBeLessThanOrEqual(700);
  });
});
