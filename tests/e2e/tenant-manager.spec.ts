import { expect, test } from "./fixtures";
import { createSuperAdmin, followStaffLink, signIn } from "./staff";

const SHOTS = process.env.E2E_SCREENSHOTS;

// Later tests (and the next round of --repeat-each) expect the seeded colour.
test.afterEach(async ({ page }) => {
  const restored = await page.request.patch("/api/tenants/keydiscovery/branding", {
    data: { primaryColor: "#1b365d" },
  });
  expect(restored.status()).toBe(200);
});

test("a super admin changes a tenant's primary colour and its public site uses it", async ({
  page,
}) => {
  await signIn(page, await createSuperAdmin("tenants"));
  await followStaffLink(page, "Settings", "Tenant manager");
  await expect(page.getByRole("heading", { name: "Tenant manager" })).toBeVisible();
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/tenants.png`, fullPage: true });

  await page.getByRole("link", { name: "Open KeyDiscovery Legal" }).click();
  await expect(page.getByRole("heading", { name: "KeyDiscovery Legal", level: 1 })).toBeVisible();
  await page.getByRole("link", { name: "Edit Configuration" }).click();

  const primary = page.getByRole("textbox", { name: "Primary colour", exact: true });
  await primary.fill("#8a2be2");
  // The live preview follows what is typed, before saving.
  await expect(page.getByLabel("Live preview of the branding").getByText("Subscribe")).toHaveCSS(
    "background-color",
    "rgb(138, 43, 226)",
  );
  if (SHOTS) await page.screenshot({ path: `${SHOTS}/tenant-edit.png`, fullPage: true });

  await page.getByRole("button", { name: "Save" }).first().click();
  await expect(page.getByText("Tenant configuration saved successfully!")).toBeVisible();
  await expect(page.getByRole("heading", { name: "History" })).toBeVisible();
  await expect(page.getByText("branding.primaryColor").first()).toBeAttached();

  await page.goto("/?subdomain=keydiscovery");
  const style = await page.locator("html").getAttribute("style");
  expect(style).toContain("--brand-primary:#8a2be2");

  // A bad colour is refused, says why, and changes nothing.
  await page.goto("/admin/tenants/keydiscovery?edit=1");
  await page.getByRole("textbox", { name: "Primary colour", exact: true }).fill("not a colour");
  await page.getByRole("button", { name: "Save" }).first().click();
  await expect(
    page.getByText("Failed to save tenant configuration. Please try again."),
  ).toBeVisible();
  await expect(
    page.getByText("Primary colour must be a CSS colour such as #1b365d, rgb(27, 54, 93) or navy"),
  ).toBeVisible();
  await page.goto("/?subdomain=keydiscovery");
  expect(await page.locator("html").getAttribute("style")).toContain("--brand-primary:#8a2be2");
});

test("the template preview renders the real email in the tenant's branding", async ({ page }) => {
  await signIn(page, await createSuperAdmin("preview"));
  await page.goto("/admin/tenants/keydiscovery");
  await page
    .getByRole("region", { name: "Email Templates" })
    .getByRole("button", { name: "Preview" })
    .first()
    .click();
  const frame = page.frameLocator("iframe[title^='Preview of the welcome email']");
  await expect(frame.getByText("KeyDiscovery Legal").first()).toBeVisible();
  if (SHOTS) {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.screenshot({ path: `${SHOTS}/tenant-phone.png`, fullPage: true });
  }
});

test("the tenant manager shows each colour pair's contrast and asks before saving one below AA", async ({
  page,
}) => {
  await signIn(page, await createSuperAdmin("contrast"));
  await page.goto("/admin/tenants/keydiscovery?edit=1");
  const report = page.getByRole("region", { name: "Contrast (WCAG 2.2 AA)" });
  const primaryPair = report
    .getByRole("listitem")
    .filter({ hasText: "Links and outlined buttons (primary) on the background" });
  await expect(primaryPair).toContainText("passes");

  // Khaki on white: 1.2:1. The report follows the typing, before saving.
  await page.getByRole("textbox", { name: "Primary colour", exact: true }).fill("#f0e68c");
  await expect(primaryPair).toContainText("fails (needs 4.5:1)");
  await expect(primaryPair).toContainText("The site uses");

  await page.getByRole("button", { name: "Save" }).first().click();
  const warning = report.getByRole("alert");
  await expect(warning).toContainText("below WCAG AA contrast");
  await expect(warning).toContainText("Links and outlined buttons (primary) on the background");
  await page.goto("/?subdomain=keydiscovery");
  expect(await page.locator("html").getAttribute("style")).toContain("--brand-primary:#1b365d");

  await page.goto("/admin/tenants/keydiscovery?edit=1");
  await page.getByRole("textbox", { name: "Primary colour", exact: true }).fill("#f0e68c");
  await page.getByRole("button", { name: "Save" }).first().click();
  await page.getByRole("checkbox", { name: "Save these colours anyway" }).check();
  await page.getByRole("button", { name: "Save" }).first().click();
  await expect(page.getByText("Tenant configuration saved successfully!")).toBeVisible();

  // The site keeps the colour as picked and draws text and links in a readable shade of it.
  await page.goto("/?subdomain=keydiscovery");
  const style = (await page.locator("html").getAttribute("style")) ?? "";
  expect(style).toContain("--brand-primary:#f0e68c");
  const strong = /--brand-primary-strong:(#[0-9a-f]{6})/.exec(style)?.[1];
  expect(strong).toBeDefined();
  expect(strong).not.toBe("#f0e68c");
});
