import { join } from "node:path";
import SQLite from "better-sqlite3";
import { expect, type Page, test } from "./fixtures";

function database() {
  const dataDir = process.env.E2E_DATA_DIR;
  if (!dataDir) throw new Error("E2E_DATA_DIR is not set (see playwright.config.ts)");
  return new SQLite(join(dataDir, "herald.db"), { readonly: true });
}

const headerBorderColor = (page: Page) =>
  page
    .locator("header")
    .first()
    .evaluate((element) => getComputedStyle(element).borderBottomColor);

test.describe("tenant branding", () => {
  test("each tenant's home page shows its own branding", async ({ page }) => {
    await page.goto("/");
    await expect(page.locator("html")).toHaveAttribute("data-tenant", "main");
    await expect(page.getByRole("link", { name: "Join our newsletter" })).toHaveAttribute(
      "href",
      "/newsletter",
    );
    expect(await headerBorderColor(page)).toBe("rgb(74, 144, 226)"); // #4a90e2
    await expect(page.getByTestId("header-company-name")).toHaveText("KeyDiscovery");
    const mainFont = await page
      .locator("body")
      .evaluate((element) => getComputedStyle(element).fontFamily);

    await page.goto("/?subdomain=keydiscovery");
    await expect(page.locator("html")).toHaveAttribute("data-tenant", "keydiscovery");
    expect(await headerBorderColor(page)).toBe("rgb(27, 54, 93)"); // #1b365d
    await expect(page.getByTestId("header-company-name")).toHaveText("KeyDiscovery Legal");
    const kdFont = await page
      .locator("body")
      .evaluate((element) => getComputedStyle(element).fontFamily);
    expect(kdFont).toContain("Georgia");
    expect(kdFont).not.toBe(mainFont);

    // The choice is remembered while browsing.
    await page
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: "About" })
      .click();
    await expect(page).toHaveURL(/\/about$/);
    await expect(page.locator("html")).toHaveAttribute("data-tenant", "keydiscovery");
    await expect(page.getByRole("heading", { level: 2, name: /core values/i })).toBeVisible();
  });

  test("the navigation bar leads to every marketing page and Sign In", async ({ page }) => {
    await page.goto("/?subdomain=main");
    const nav = page.getByRole("navigation", { name: "Main" });
    for (const [label, path] of [
      ["Services", "/services"],
      ["Products", "/products"],
      ["Contact", "/contact"],
      ["Home", "/"],
    ] as const) {
      await nav.getByRole("link", { name: label, exact: true }).click();
      await expect(page).toHaveURL(new RegExp(`${path === "/" ? "/$" : `${path}$`}`));
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    }
    await expect(nav.getByRole("link", { name: "Sign In" })).toHaveAttribute(
      "href",
      "/admin/login",
    );
  });

  test("phones get a menu that opens without layout overflow", async ({ page }) => {
    await page.setViewportSize({ width: 375, height: 740 });
    await page.goto("/?subdomain=main");
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth > window.innerWidth,
    );
    expect(overflow).toBe(false);
    await page.getByText("Menu", { exact: true }).click();
    await page
      .getByRole("navigation", { name: "Main" })
      .getByRole("link", { name: "Services" })
      .click();
    await expect(page).toHaveURL(/\/services$/);
  });
});

test.describe("contact form", () => {
  test("explains bad input in the browser, then stores a valid message", async ({ page }) => {
    await page.goto("/contact?subdomain=keydiscovery");
    await page.getByLabel("Full name").fill("Morgan Ellis");
    await page.getByLabel("Email").fill("morgan@nodot");
    await page
      .getByRole("textbox", { name: "Message" })
      .fill("We would like a weekly newsletter for our review team.");
    await page.getByRole("button", { name: "Send message" }).click();
    await expect(page.getByText("Invalid email format: morgan@nodot")).toBeVisible();
    await expect(page.getByLabel("Email")).toHaveAttribute("aria-invalid", "true");

    await page.getByLabel("Email").fill("morgan@ellis-partners.example");
    await page.getByLabel("Company").fill("Ellis Partners");
    await page.getByRole("button", { name: "Send message" }).click();
    await expect(page.getByTestId("contact-confirmation")).toContainText(
      "your message has been received",
    );

    const db = database();
    const row = db
      .prepare(
        "select tenant_id, name, email, company, message from contact_messages where email = ?",
      )
      .get("morgan@ellis-partners.example");
    db.close();
    expect(row).toEqual({
      tenant_id: "keydiscovery",
      name: "Morgan Ellis",
      email: "morgan@ellis-partners.example",
      company: "Ellis Partners",
      message: "We would like a weekly newsletter for our review team.",
    });
  });

  test("works with JavaScript off and keeps what was typed", async ({
    browser,
    extraHTTPHeaders,
  }) => {
    const context = await browser.newContext({ javaScriptEnabled: false, extraHTTPHeaders });
    const page = await context.newPage();
    await page.goto("/contact?subdomain=main");
    // Without JavaScript the browser's own checks run first; bypass them to reach the server's.
    await page.locator("form[method=post]").evaluate((form) => form.setAttribute("novalidate", ""));
    await page.getByLabel("Full name").fill("Robin Shaw");
    await page.getByLabel("Email").fill("robin@shaw");
    await page.getByRole("button", { name: "Send message" }).click();
    await expect(page.getByText("Invalid email format: robin@shaw")).toBeVisible();
    await expect(page.getByText("Please enter a message.")).toBeVisible();
    await expect(page.getByLabel("Full name")).toHaveValue("Robin Shaw");

    await page.locator("form[method=post]").evaluate((form) => form.setAttribute("novalidate", ""));
    await page.getByLabel("Email").fill("robin@shaw.example");
    await page.getByRole("textbox", { name: "Message" }).fill("Please call me about RFI.");
    await page.getByRole("button", { name: "Send message" }).click();
    await expect(page.getByTestId("contact-confirmation")).toBeVisible();
    await context.close();

    const db = database();
    const row = db
      .prepare("select tenant_id from contact_messages where email = ?")
      .get("robin@shaw.example");
    db.close();
    expect(row).toEqual({ tenant_id: "main" });
  });
});

test("unknown pages answer 404 with the branded frame", async ({ page }) => {
  const response = await page.goto("/definitely-not-here");
  expect(response?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1, name: "Page not found" })).toBeVisible();
  await expect(page.getByRole("banner")).toBeVisible();
});
