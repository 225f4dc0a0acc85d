import { expect, test } from "./fixtures";
import { createSuperAdmin, PASSWORD } from "./staff";

/**
 * The sign-in and subscription pages ship no app JavaScript (issue 17, target 5): their forms are
 * plain HTML, and one small inline script (app/lib/form-enhancements.js) gives them what SPEC asks
 * beyond HTML. These check both halves: the behaviours with script, the forms without it.
 */

/** The page loads no script file, only the one inline script with the page's CSP nonce. */
async function expectOnlyInlineEnhancements(page: import("@playwright/test").Page) {
  expect(await page.locator("script[src]").count()).toBe(0);
  expect(await page.locator("link[rel=modulepreload]").count()).toBe(0);
  const scripts = page.locator("script");
  await expect(scripts).toHaveCount(1);
  // Browsers hide the nonce attribute from the DOM once the page is parsed; the property keeps it.
  expect(await scripts.evaluate((script) => (script as HTMLScriptElement).nonce)).toBeTruthy();
}

test("sign-in: Show/Hide password and 'Signing in...' while the form is on its way", async ({
  page,
}) => {
  const email = await createSuperAdmin("enhance");
  await page.goto("/admin/login");
  await expectOnlyInlineEnhancements(page);

  const password = page.getByLabel("Password", { exact: true });
  await password.fill(PASSWORD);
  await expect(password).toHaveAttribute("type", "password");
  await page.getByRole("button", { name: "Show password" }).click();
  await expect(password).toHaveAttribute("type", "text");
  const hide = page.getByRole("button", { name: "Hide password" });
  await expect(hide).toHaveText("Hide");
  await expect(hide).toHaveAttribute("aria-pressed", "true");
  await hide.click();
  await expect(password).toHaveAttribute("type", "password");

  await page.getByLabel("Email").fill(email);
  // What the button reads once the form is submitted: reported from the page, since Playwright's
  // locators wait for the navigation that the submission starts.
  const seen: { label: string; ariaDisabled: string | null }[] = [];
  await page.exposeFunction("reportBusy", (label: string, ariaDisabled: string | null) => {
    seen.push({ label, ariaDisabled });
  });
  await page.evaluate(() => {
    // Added after the enhancements' own listener, so it runs after it.
    document.addEventListener("submit", (event) => {
      const button = (event as SubmitEvent).submitter as HTMLButtonElement;
      const report = (window as unknown as { reportBusy: (...args: unknown[]) => void }).reportBusy;
      report(button.textContent, button.getAttribute("aria-disabled"));
    });
  });
  await page.getByRole("button", { name: "Sign In" }).click();
  await expect(page).toHaveURL(/\/admin\/dashboard$/);
  expect(seen).toEqual([{ label: "Signing in...", ariaDisabled: "true" }]);
});

test("sign-in: a wrong password is refused with the form's message and the address kept", async ({
  page,
}) => {
  const email = await createSuperAdmin("enhance-wrong");
  await page.goto("/admin/login");
  await page.getByLabel("Email").fill(email);
  await page.getByRole("button", { name: "Sign In" }).click();
  await expect(page.getByText("Password is required")).toBeVisible();
  await page.getByLabel("Password", { exact: true }).fill("not the password");
  await page.getByRole("button", { name: "Sign In" }).click();
  await expect(page.getByRole("alert")).toHaveText(
    "Failed to sign in. Please check your credentials.",
  );
  await expect(page.getByLabel("Email")).toHaveValue(email);
  // The page came back from the server: the button is itself again.
  await expect(page.getByRole("button", { name: "Sign In" })).not.toHaveAttribute(
    "aria-disabled",
    "true",
  );
});

test("unsubscribe: the preferences link carries the typed address", async ({ page }) => {
  await page.goto("/subscription/unsubscribe");
  await expectOnlyInlineEnhancements(page);
  await page.getByLabel("Email address").fill("  reader@example.com ");
  await expect(page.getByRole("link", { name: "Manage your preferences" })).toHaveAttribute(
    "href",
    "/subscription/preferences?email=reader%40example.com",
  );
});

test("without JavaScript the forms still work and say nothing they cannot do", async ({
  browser,
  extraHTTPHeaders,
  baseURL,
}) => {
  const email = await createSuperAdmin("noscript");
  const context = await browser.newContext({ javaScriptEnabled: false, extraHTTPHeaders, baseURL });
  const page = await context.newPage();

  // Unsubscribe: the button is not disabled (nothing could enable it); the server explains a blank.
  await page.goto("/subscription/unsubscribe");
  await page.getByRole("button", { name: "Unsubscribe from all newsletters" }).click();
  await expect(page.getByText("Please enter your email address.")).toBeVisible();

  // Preferences lookup: the server answers for any address alike.
  await page.goto("/subscription/preferences");
  await page.getByLabel("Email address").fill("nobody@example.com");
  await page.getByRole("button", { name: "Find Subscription" }).click();
  await expect(page.getByText("Check your inbox")).toBeVisible();

  // Sign-in: no Show button (it would do nothing); the form signs in.
  await page.goto("/admin/login");
  await expect(page.getByRole("button", { name: "Show password" })).toHaveCount(0);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password", { exact: true }).fill(PASSWORD);
  await page.getByRole("button", { name: "Sign In" }).click();
  await expect(page).toHaveURL(/\/admin\/dashboard$/);
  await context.close();
});
