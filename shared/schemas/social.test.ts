import { parseWithZod } from "@conform-to/zod/v4";
import { describe, expect, it } from "vitest";
import { LINKEDIN_MAX, SHORT_MAX, SOCIAL_MESSAGES, socialTextsSchema } from "./social";

describe("the social pack's form", () => {
  const errors = (value: unknown) => {
    const result = socialTextsSchema.safeParse(value);
    return result.success ? [] : result.error.issues.map((issue) => issue.message);
  };

  it("takes both posts, line ends as \\n, blanks around trimmed", () => {
    expect(socialTextsSchema.parse({ linkedIn: " a\r\nb \n", short: "c" })).toEqual({
      linkedIn: "a\nb",
      short: "c",
    });
  });

  it("refuses empty, missing and overlong posts, counting characters, not UTF-16 units", () => {
    expect(errors({ linkedIn: "  ", short: "" })).toEqual([
      SOCIAL_MESSAGES.linkedInEmpty,
      SOCIAL_MESSAGES.shortEmpty,
    ]);
    expect(errors({})).toEqual([SOCIAL_MESSAGES.linkedInEmpty, SOCIAL_MESSAGES.shortEmpty]);
    expect(
      errors({ linkedIn: "x".repeat(LINKEDIN_MAX + 1), short: "y".repeat(SHORT_MAX + 1) }),
    ).toEqual([SOCIAL_MESSAGES.linkedInLong, SOCIAL_MESSAGES.shortLong]);
    // 280 emoji are 560 UTF-16 units and 280 characters.
    expect(errors({ linkedIn: "x".repeat(LINKEDIN_MAX), short: "🎉".repeat(SHORT_MAX) })).toEqual(
      [],
    );
  });

  it("says the same through Conform, which reads a blank field as no value", () => {
    const form = new FormData();
    form.set("linkedIn", "   ");
    form.set("short", " \r\n ");
    const submission = parseWithZod(form, { schema: socialTextsSchema });
    expect(submission.status).toBe("error");
    expect(submission.status === "error" ? submission.error : null).toEqual({
      linkedIn: [SOCIAL_MESSAGES.linkedInEmpty],
      short: [SOCIAL_MESSAGES.shortEmpty],
    });
  });
});
