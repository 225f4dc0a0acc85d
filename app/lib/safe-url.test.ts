import { describe, expect, it } from "vitest";
import { safeLinkUrl } from "./safe-url";

describe("safeLinkUrl", () => {
  it.each([
    ["https://example.com/a?b=c#d", "https://example.com/a?b=c#d"],
    ["  http://example.com ", "http://example.com"],
    ["mailto:editor@example.com", "mailto:editor@example.com"],
    ["/newsletter/123", "/newsletter/123"],
    ["#section", "#section"],
    ["example.com/page", "https://example.com/page"],
  ])("keeps %j", (input, expected) => {
    expect(safeLinkUrl(input)).toBe(expected);
  });

  it.each([
    "javascript:alert(1)",
    "JavaScript:alert(1)",
    " java\tscript:alert(1)",
    "java\u0000script:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:msgbox(1)",
    "//evil.example/path",
    "/\\evil.example",
    "mailto:",
    "",
    "   ",
    "not a url",
    "https://",
  ])("refuses %j", (input) => {
    expect(safeLinkUrl(input)).toBeNull();
  });
});
