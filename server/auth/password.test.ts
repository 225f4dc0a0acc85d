import { describe, expect, it } from "vitest";
import { isCommonPassword } from "./password";

describe("the common-password check", () => {
  it("knows the passwords attackers try first, whatever their case", async () => {
    for (const password of [
      "password123",
      "Password123",
      "qwertyuiop",
      "1234567890",
      "iloveyou12",
    ]) {
      expect(await isCommonPassword(password), password).toBe(true);
    }
  });

  it("lets an uncommon password through", async () => {
    for (const password of ["correct horse battery staple", "a-long-password", "longenough1"]) {
      expect(await isCommonPassword(password), password).toBe(false);
    }
  });
});
