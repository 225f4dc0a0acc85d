import { expect, type Page, test } from "./fixtures";
import { createSuperAdmin, signIn } from "./staff";

/*
 * Issue 35, target 7 (and target 8's banner): the staff navigation fits one row at 1280 px and is
 * one menu on phones, works from the keyboard and marks the current section on every page under
 * it; the signed-in site header fits at 768 px; a tenant can turn off the home page's banner.
 */

const staffNav = (page: Page) => page.getByRole("navigation", { name: "Staff" });
const summaries = (page: Page) => staffNav(page).locator("summary:visible");

/** Nothing sticks out sideways (a row that does not fit shows as a wider document). */
const overflowsSideways = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);

test("the staff navigation is one row of menus at 1280 px, marking the current section", async ({
  page,
}) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  await signIn(page, await createSuperAdmin("frame"));
  await page.goto("/admin/lists");
  // The menus close on Escape once the page's script runs.
  await page.waitForLoadState("networkidle");
  const boxes = await summaries(page).evaluateAll((elements) =>
    elements.map((element) => {
      const box = element.getBoundingClientRect();
      return { text: element.textContent ?? "", top: box.top, bottom: box.bottom };
    }),
  );
  // Four sections and the tenant menu, side by side on one line.
  expect(boxes.map((box) => box.text.replace(/\s*\(current section\)|▾/g, "").trim())).toEqual([
    "Newsletters",
    "Audience",
    "Messages",
    "Settings",
    "Tenant: KeyDiscovery",
  ]);
  expect(new Set(boxes.map((box) => Math.round(box.top))).size).toBe(1);
  const row = await staffNav(page).getByTestId("staff-nav-row").boundingBox();
  expect(row?.height).toBeLessThan(50);
  expect(await overflowsSideways(page)).toBe(false);

  // From the keyboard: Enter opens a section's menu, Escape closes it and returns the focus.
  const audience = summaries(page).filter({ hasText: "Audience" });
  await expect(audience).toContainText("(current section)");
  await audience.focus();
  await page.keyboard.press("Enter");
  const lists = staffNav(page).getByRole("link", { name: "Lists", exact: true });
  await expect(lists).toBeVisible();
  await expect(lists).toHaveAttribute("aria-current", "page");
  await page.keyboard.press("Escape");
  await expect(lists).toBeHidden();
  await expect(audience).toBeFocused();

  // Opening one menu closes another.
  await audience.click();
  await summaries(page).filter({ hasText: "Settings" }).click();
  await expect(lists).toBeHidden();
  await expect(staffNav(page).getByRole("link", { name: "Tenant manager" })).toBeVisible();

  // The pages under a section mark it: the editor and the import pages are the Newsletters'.
  for (const [path, link] of [
    ["/admin/newsletter/new", "Newsletters"],
    ["/admin/newsletter/import", "Newsletter imports"],
    ["/admin/subscribers/fields", "Fields"],
  ] as const) {
    await page.goto(path);
    const current = staffNav(page).getByTestId("staff-nav-row").locator('[aria-current="page"]');
    await expect(current, path).toHaveCount(1);
    await expect(current, path).toHaveText(link);
  }
  await expect(summaries(page).filter({ hasText: "(current section)" })).toHaveText(/Audience/);
});

test("on a phone the staff navigation is one menu, and the header fits at 768 px", async ({
  page,
}) => {
  await signIn(page, await createSuperAdmin("frame-phone"));
  await page.setViewportSize({ width: 375, height: 800 });
  await page.goto("/admin/segments");
  await expect(staffNav(page).getByTestId("staff-nav-row")).toBeHidden();
  const menu = summaries(page).filter({ hasText: "Staff menu" });
  await expect(menu).toBeVisible();
  await menu.click();
  await staffNav(page).getByRole("link", { name: "Subscribers", exact: true }).click();
  await expect(page).toHaveURL(/\/admin\/subscribers$/);
  expect(await overflowsSideways(page)).toBe(false);

  // 768 px signed in: the site header's items are behind its Menu, nothing covers the logo.
  await page.setViewportSize({ width: 768, height: 900 });
  await page.goto("/admin/lists");
  const header = page.locator("header").first();
  await expect(header.getByText("Menu", { exact: true })).toBeVisible();
  const logo = await header.getByTestId("header-company-name").boundingBox();
  const button = await header.getByText("Menu", { exact: true }).boundingBox();
  expect((logo?.x ?? 0) + (logo?.width ?? 0)).toBeLessThan(button?.x ?? 0);
  expect(await overflowsSideways(page)).toBe(false);
  await header.getByText("Menu", { exact: true }).click();
  await expect(
    page.getByRole("navigation", { name: "Main" }).getByRole("button", { name: "Sign Out" }),
  ).toBeVisible();
});

test("a tenant turns the home page's banner off in the tenant manager, and on again", async ({
  page,
}) => {
  const banner = "We are busy shipping new features — thank you for your patience while we build.";
  const setBanner = async (on: boolean) => {
    await page.goto("/admin/tenants/keydiscovery?edit=1");
    const box = page.getByRole("checkbox", {
      name: "Show the “busy shipping new features” banner on the home page",
    });
    await box.setChecked(on);
    await page.getByRole("button", { name: "Save" }).first().click();
    await expect(page.getByText("Tenant configuration saved successfully!")).toBeVisible();
  };
  await signIn(page, await createSuperAdmin("banner"));
  await page.goto("/?subdomain=keydiscovery");
  await expect(page.getByText(banner)).toBeVisible();
  try {
    await setBanner(false);
    await page.goto("/?subdomain=keydiscovery");
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await expect(page.getByText(banner)).toHaveCount(0);
    // The other tenant keeps it.
    await page.goto("/?subdomain=main");
    await expect(page.getByText(banner)).toBeVisible();
  } finally {
    await setBanner(true);
  }
  await page.goto("/?subdomain=keydiscovery");
  await expect(page.getByText(banner)).toBeVisible();
});
