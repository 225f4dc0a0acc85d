import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "./fixtures";
import { createSuperAdmin, signIn } from "./staff";

const THANKS = "Thanks! Please check your inbox — we've sent you an email about your subscription.";

function dataDir(): string {
  const dir = process.env.E2E_DATA_DIR;
  if (!dir) throw new Error("E2E_DATA_DIR is not set (see playwright.config.ts)");
  return dir;
}

test("a visitor signs up on a page that ships no JavaScript, and staff read the mail in the outbox as it was rendered", async ({
  page,
}) => {
  const email = `e2e-signup-${Date.now()}@example.com`;
  await page.goto("/newsletter/subscribe");
  await expect(
    page.getByRole("heading", { level: 1, name: "Subscribe to our newsletters" }),
  ).toBeVisible();
  // Pure content and form pages load no script at all (issue 17): the form is plain HTML.
  expect(await page.locator("script").count()).toBe(0);

  const form = page.getByRole("form", { name: "Newsletter sign-up" });
  await form.getByLabel("Email", { exact: true }).fill("dana@nodot");
  await form.getByRole("button", { name: "Subscribe" }).click();
  await expect(page.getByText("Invalid email format: dana@nodot")).toBeVisible();
  await expect(page.getByLabel("Email", { exact: true })).toHaveValue("dana@nodot");

  await page.getByLabel("Email", { exact: true }).fill(email);
  await page.getByLabel("Name").fill("E2E Reader");
  await page.getByRole("checkbox", { name: /Industry News/ }).check();
  await page.getByRole("button", { name: "Subscribe" }).click();
  await expect(page).toHaveURL(/\/newsletter\/subscribe\?done=1$/);
  await expect(page.getByTestId("signup-thanks")).toContainText(THANKS);

  await signIn(page, await createSuperAdmin());
  await page.goto("/admin/outbox");
  await page
    .getByRole("row", { name: new RegExp(email) })
    .getByRole("link")
    .click();
  await expect(page).toHaveURL(/\/admin\/outbox\/\d+$/);
  // The HTML part renders inside the sandboxed frame under the production CSP.
  const preview = page.frameLocator('iframe[title="Email preview"]');
  await expect(preview.getByText("Confirm my subscription")).toBeVisible();
  await expect(preview.getByText(/Industry News/)).toBeVisible();
  await expect(page.locator("pre")).toContainText("/subscription/confirm/");
});

test("the home hero and the newsletter page sign a visitor up, with JavaScript on or off", async ({
  page,
  browser,
  extraHTTPHeaders,
}) => {
  await page.goto("/");
  const hero = page.getByRole("form", { name: "Newsletter sign-up" });
  await hero.getByLabel("Email address").fill(`e2e-hero-${Date.now()}@example.com`);
  await hero.getByRole("button", { name: "Subscribe" }).click();
  await expect(page).toHaveURL(/\/newsletter\/subscribe\?done=1$/);
  await expect(page.getByTestId("signup-thanks")).toContainText(THANKS);

  const noScript = await browser.newContext({ javaScriptEnabled: false, extraHTTPHeaders });
  try {
    const plain = await noScript.newPage();
    await plain.goto("/newsletter");
    const form = plain.getByRole("form", { name: "Newsletter sign-up" });
    await form.getByLabel("Email", { exact: true }).fill("not-an-address");
    await form.getByRole("button", { name: "Subscribe" }).click();
    await expect(plain).toHaveURL(/\/newsletter\/subscribe$/);
    await expect(plain.getByText("Invalid email format: not-an-address")).toBeVisible();
    await expect(plain.getByLabel("Email", { exact: true })).toHaveValue("not-an-address");
    await plain.getByLabel("Email", { exact: true }).fill(`e2e-plain-${Date.now()}@example.com`);
    await plain.getByRole("button", { name: "Subscribe" }).click();
    await expect(plain).toHaveURL(/\/newsletter\/subscribe\?done=1$/);
    await expect(plain.getByTestId("signup-thanks")).toContainText(THANKS);
  } finally {
    await noScript.close();
  }
});

test("staff import a CSV, watch it in the background and land on the report of refused rows", async ({
  page,
}) => {
  await signIn(page, await createSuperAdmin());
  const file = join(dataDir(), "import.csv");
  const stamp = Date.now();
  writeFileSync(
    file,
    `email,name,lists\nimported-${stamp}@example.com,Imported,newsletter\nnot-an-email,Bad,\n`,
  );
  await page.goto("/admin/subscribers");
  await page.getByLabel("CSV file (at most 10 MB)").setInputFiles(file);
  await page.getByRole("button", { name: "Import CSV" }).click();
  await expect(page).toHaveURL(/\/admin\/subscribers\/imports\/\d+$/);
  // The page asks again while the import runs in the background, until the report is there.
  const report = page.getByRole("status").filter({ hasText: "Imported 1 rows; refused 1 rows" });
  await expect(report).toBeVisible();
  await expect(report.getByRole("row", { name: /not-an-email/ })).toContainText(
    "Invalid email format: not-an-email",
  );
  await page.goto("/admin/subscribers");
  await page.getByLabel("Email or name contains").fill(`imported-${stamp}`);
  await page.getByRole("button", { name: "Search" }).click();
  await expect(page.getByText(/^1 subscriber match · page/)).toBeVisible();
});
