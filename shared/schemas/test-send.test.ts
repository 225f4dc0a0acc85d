import { describe, expect, it } from "vitest";
import { TEST_SEND_TEXT, testRecipientsSchema } from "./test-send";
import { UNSTORABLE_TEXT_MESSAGE } from "./text";

const messages = (value: unknown) =>
  testRecipientsSchema.safeParse(value).error?.issues.map((issue) => issue.message);

describe("testRecipientsSchema", () => {
  it("takes up to five addresses, trimmed, each once whatever its case", () => {
    expect(
      testRecipientsSchema.parse(" a@example.com, b@example.com;\nA@Example.com  c@example.com "),
    ).toEqual(["a@example.com", "b@example.com", "c@example.com"]);
    const five = ["1", "2", "3", "4", "5"].map((n) => `p${n}@example.com`);
    expect(testRecipientsSchema.parse(five.join(","))).toEqual(five);
  });

  it("refuses none, six, a bad address and a non-string, each with one clear message", () => {
    expect(messages("")).toEqual([TEST_SEND_TEXT.none]);
    expect(messages(" , ; ")).toEqual([TEST_SEND_TEXT.none]);
    const six = ["1", "2", "3", "4", "5", "6"].map((n) => `p${n}@example.com`).join(",");
    expect(messages(six)).toEqual([TEST_SEND_TEXT.tooMany]);
    expect(messages("a@example.com, <b>@x")).toEqual(["Invalid email format: <b>@x"]);
    expect(messages("robert'); DROP TABLE subscribers;--@x.y")).toEqual([
      "Invalid email format: robert')",
    ]);
    expect(messages(42)).toEqual([TEST_SEND_TEXT.none]);
    expect(messages("a\u0000@example.com")).toEqual([UNSTORABLE_TEXT_MESSAGE]);
    expect(messages("a\ud800@example.com")).toEqual([UNSTORABLE_TEXT_MESSAGE]);
    expect(messages(`a@example.com,${" ".repeat(2_000)}`)).toEqual([TEST_SEND_TEXT.tooMany]);
    expect(messages(`${"x".repeat(250)}@example.com`)).toEqual([
      `Invalid email format: ${"x".repeat(250)}@example.com`,
    ]);
  });
});
