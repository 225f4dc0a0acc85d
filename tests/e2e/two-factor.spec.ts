import { Secret, TOTP } from "otpauth";
import { expect, test } from "./fixtures";
import { createSuperAdmin, PASSWORD, signIn } from "./staff";

const codeFor = (secret: string, stepsAhead = 0) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate({
    timestamp: Date.now() + stepsAhead * 30_000,
  });

test("a staff member turns on two-factor sign-in and signs in with a code", async ({
  page,
}, testInfo) => {
  const email = await createSuperAdmin("two-factor");
  await signIn(page, email);
  await page.getByRole("link", { name: "Your account" }).click();
  await page.getByRole("button", { name: "Set up two-factor sign-in" }).click();
  await expect(page.getByRole("img", { name: "QR code for your authenticator app" })).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath("enrol.png"), fullPage: true });
  const desktop = page.viewportSize() ?? { width: 1280, height: 720 };
  await page.setViewportSize({ width: 375, height: 800 });
  await page.screenshot({ path: testInfo.outputPath("enrol-phone.png"), fullPage: true });
  await page.setViewportSize(desktop);
  const secret = (await page.getByTestId("totp-secret").textContent()) ?? "";
  await page.getByLabel("Code from the app").fill(codeFor(secret));
  await page.getByRole("button", { name: "Turn on two-factor sign-in" }).click();
  const codes = page.getByTestId("recovery-codes").getByRole("listitem");
  await expect(codes).toHaveCount(10);
  await page.screenshot({ path: testInfo.outputPath("recovery-codes.png"), fullPage: true });
  await page.setViewportSize({ width: 375, height: 800 });
  await page.screenshot({ path: testInfo.outputPath("recovery-codes-phone.png"), fullPage: true });
  await page.setViewportSize(desktop);

  await page.getByRole("button", { name: "Sign Out" }).first().click();
  await page.goto("/admin/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByRole("button", { name: "Sign In" }).click();
  await expect(page.getByRole("heading", { name: "Two-factor sign-in" })).toBeVisible();
  await page.setViewportSize({ width: 375, height: 800 });
  await page.screenshot({ path: testInfo.outputPath("code-step-phone.png"), fullPage: true });
  await page.getByLabel("Authentication code").fill("000000");
  await page.getByRole("button", { name: "Verify" }).click();
  await expect(page.getByText("That code is not right.")).toBeVisible();
  // The code that confirmed enrolment is spent; the next one is accepted a step early.
  await page.getByLabel("Authentication code").fill(codeFor(secret, 1));
  await page.getByRole("button", { name: "Verify" }).click();
  await expect(page).toHaveURL(/\/admin\/dashboard$/);
});

test("Forgot password? answers the same for any address", async ({ page }, testInfo) => {
  await page.goto("/admin/login");
  await page.getByRole("link", { name: "Forgot password?" }).click();
  await page.getByLabel("Email").fill("someone@example.com");
  await page.getByRole("button", { name: "Send reset link" }).click();
  await expect(
    page.getByText("If an account exists for that address, we have sent it a link"),
  ).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath("forgot.png"), fullPage: true });
});
