import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { contactSchema } from "./contact";
import { isValidEmail, SPEC_EMAIL } from "./email";

const valid = { name: "Dana", email: "dana@example.com", message: "Hello" };

describe("contactSchema", () => {
  it("accepts a complete message and trims it", () => {
    const result = contactSchema.parse({ ...valid, name: "  Dana  ", company: " Acme " });
    expect(result).toMatchObject({ name: "Dana", company: "Acme" });
  });

  it("requires name, email and message; company is optional", () => {
    const result = contactSchema.safeParse({ name: " ", email: "", message: "" });
    expect(result.success).toBe(false);
    const messages = result.error?.issues.map((issue) => issue.message);
    expect(messages).toEqual(
      expect.arrayContaining([
        "Please enter your full name.",
        "Please enter your email address.",
        "Please enter a message.",
      ]),
    );
    expect(contactSchema.safeParse(valid).success).toBe(true);
  });

  it("says only 'Please enter your email address.' for a blank email", () => {
    const result = contactSchema.safeParse({ ...valid, email: "  " });
    expect(result.error?.issues.map((issue) => issue.message)).toEqual([
      "Please enter your email address.",
    ]);
  });

  it("uses SPEC's message for a bad email", () => {
    const result = contactSchema.safeParse({ ...valid, email: "dana@localhost" });
    expect(result.error?.issues[0]?.message).toBe("Invalid email format: dana@localhost");
  });

  it("gives a bad email one message, whichever rule refuses it", () => {
    for (const email of ["dana@localhost", "not-an-address", "dana@exa mple.com", "dana@-x.com"]) {
      const messages = contactSchema
        .safeParse({ ...valid, email })
        .error?.issues.map((issue) => issue.message);
      expect(messages).toEqual([`Invalid email format: ${email}`]);
    }
  });

  it("bounds every field", () => {
    expect(contactSchema.safeParse({ ...valid, message: "x".repeat(5001) }).success).toBe(false);
    expect(contactSchema.safeParse({ ...valid, name: "x".repeat(201) }).success).toBe(false);
    expect(contactSchema.safeParse({ ...valid, company: "x".repeat(201) }).success).toBe(false);
  });
});

describe("email rules", () => {
  it.each(["a@b.co", "first.last+tag@sub.example.org", "o'brien@firm.law"])(
    "accepts %s",
    (email) => {
      expect(isValidEmail(email)).toBe(true);
    },
  );

  it.each([
    "",
    "plain",
    "a@b",
    "a b@c.com",
    "a@b c.com",
    "@b.com",
    "a@.com",
    "a@b..com",
    "<x>@y.com",
  ])("refuses %s", (email) => {
    expect(isValidEmail(email)).toBe(false);
  });

  it("never accepts what SPEC's rule refuses", () => {
    fc.assert(
      fc.property(fc.string(), (value) => {
        if (!SPEC_EMAIL.test(value)) expect(isValidEmail(value)).toBe(false);
      }),
    );
  });
});
