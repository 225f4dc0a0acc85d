import { Secret, TOTP } from "otpauth";
import { crossTenant } from "../../server/db/tenant-guard";
import { expect, test } from "./fixtures";
import { createSuperAdmin, followStaffLink, PASSWORD, signIn, withE2eDatabase } from "./staff";

const codeFor = (secret: string, stepsAhead = 0) =>
  new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate({
    timestamp: Date.now() + stepsAhead * 30_000,
  });

test("a staff member turns on two-factor sign-in and signs in with a code", async ({
  page,
}, testInfo) => {
  const email = await createSuperAdmin("two-factor");
  await signIn(page, email);
  await followStaffLink(page, "Settings", "Your account");
  await page.getByRole("button", { name: "Set up two-factor sign-in" }).click();
  await expect(page.getByRole("img", { name: "QR code for your authenticator app" })).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath("enrol.png"), fullPage: true });
  const desktop = page.viewportSize() ?? { width: 1280, height: 720 };
  await page.setViewportSize({ width: 375, height: 800 });
  await page.screenshot({ path: testInfo.outputPath("enrol-phone.png"), fullPage: true });
  await page.setViewportSize(desktop);
  const secret = (await page.getByTestId("totp-secret").textContent()) ?? "";
  await page.getByLabel("Code from the app").fill(codeFor(secret));
  await page.getByLabel("Your password").fill(PASSWORD);
  await page.getByRole("button", { name: "Turn on two-factor sign-in" }).click();
  const codes = page.getByTestId("recovery-codes").getByRole("listitem");
  await expect(codes).toHaveCount(10);
  await page.screenshot({ path: testInfo.outputPath("recovery-codes.png"), fullPage: true });
  await page.setViewportSize({ width: 375, height: 800 });
  await page.screenshot({ path: testInfo.outputPath("recovery-codes-phone.png"), fullPage: true });
  await page.setViewportSize(desktop);

  await page.getByRole("button", { name: "Sign Out" }).first().click();
  // Signed out once the home page shows Sign In: going to /admin/login before that races the
  // sign-out, and a signed-in visitor is sent on from the login page.
  await expect(page).toHaveURL(/\/$/);
  await expect(page.getByRole("button", { name: "Sign Out" })).toHaveCount(0);
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
  // (the sign-in page has an Email field too: wait for the new page before filling one in)
  await expect(page).toHaveURL(/\/admin\/forgot-password$/);
  await expect(page.getByRole("heading", { name: "Forgot password?" })).toBeVisible();
  await page.getByLabel("Email").fill("someone@example.com");
  await page.getByRole("button", { name: "Send reset link" }).click();
  await expect(
    page.getByText("If an account exists for that address, we have sent it a link"),
  ).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath("forgot.png"), fullPage: true });
});

test("a super admin invites a staff member, who chooses a name and password", async ({
  page,
  browser,
}, testInfo) => {
  const email = await createSuperAdmin("inviter");
  const invitee = `invitee-${Date.now()}@example.com`;
  await signIn(page, email);
  await page.goto("/admin/users");
  await page.locator("#invite-email").fill(invitee);
  await page.locator("#invite-role").selectOption("super_admin");
  await page.getByRole("button", { name: "Send invitation" }).click();
  await expect(page.getByText(`Invitation sent to ${invitee}.`)).toBeVisible();
  await expect(page.locator("#invite-email")).toHaveValue("");
  const waiting = page.getByRole("listitem").filter({ hasText: invitee });
  await expect(waiting.getByRole("button", { name: "Withdraw" })).toBeVisible();
  await page.screenshot({ path: testInfo.outputPath("users.png"), fullPage: true });
  await page.setViewportSize({ width: 375, height: 800 });
  await page.screenshot({ path: testInfo.outputPath("users-phone.png"), fullPage: true });

  // Without SMTP_URL the mail waits in the outbox: the link is read from there.
  const text = await withE2eDatabase(async (db) => {
    const row = await crossTenant(db)
      .selectFrom("mail_log")
      .select("text")
      .where("to_address", "=", invitee)
      .executeTakeFirstOrThrow();
    return row.text;
  });
  const link = text.match(/https?:\/\/\S+?(\/admin\/accept-invitation\/[\w-]+)/)?.[1] ?? "";
  expect(link).not.toBe("");

  const context = await browser.newContext({ viewport: { width: 375, height: 800 } });
  const phone = await context.newPage();
  await phone.goto(link);
  await phone.getByLabel("Your name").fill("Ina Invitee");
  await phone.getByLabel("New password").fill(PASSWORD);
  await phone.getByLabel("Repeat the password").fill(PASSWORD);
  await phone.screenshot({ path: testInfo.outputPath("accept-phone.png"), fullPage: true });
  await phone.getByRole("button", { name: "Create my account" }).click();
  await expect(phone).toHaveURL(/\/admin\/dashboard$/);
  await context.close();
});
