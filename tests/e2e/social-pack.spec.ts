import { readFile } from "node:fs/promises";
import { unzipSync } from "fflate";
import { createNewsletter } from "../../server/newsletters/editing";
import { expect, test } from "./fixtures";
import { createSuperAdmin, signIn, withE2eDatabase } from "./staff";

/* Issue 36, target 1: a newsletter's social pack, looked at in Chromium. */

test("staff open a newsletter's social pack, see its images, edit a post and download the zip", async ({
  page,
}) => {
  const email = await createSuperAdmin("social");
  const newsletter = await withE2eDatabase((db) =>
    createNewsletter(
      { db, tenantId: "main", authorId: null },
      {
        title: `Social pack ${Date.now()}`,
        excerpt: "What to share and where.",
        content:
          "<h2>One</h2><h2>Two</h2><h2>Three</h2><blockquote><p>Preserve first, argue later.</p></blockquote>",
      },
    ),
  );
  await signIn(page, email);
  await page.goto(`/admin/newsletter/edit/${newsletter.id}`);
  await page.getByRole("link", { name: "Social pack" }).click();
  await expect(page).toHaveURL(new RegExp(`/admin/newsletter/social/${newsletter.id}$`));
  await expect(page.getByLabel("LinkedIn post")).toHaveValue(/→ One\n→ Two\n→ Three/);

  // Every image is decoded by the browser at its own size.
  const images = page.locator("main img");
  await expect(images).toHaveCount(3);
  for (const image of await images.all()) {
    await image.scrollIntoViewIfNeeded();
    await expect
      .poll(() => image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth))
      .toBeGreaterThan(0);
    const size = await image.evaluate((img: HTMLImageElement) => [
      img.naturalWidth,
      img.naturalHeight,
    ]);
    expect([
      [1200, 627],
      [1080, 1080],
    ]).toContainEqual(size);
  }

  // The count follows the typing; a post over the limit is refused with the reason.
  const short = page.getByLabel("Short post");
  await short.fill("x".repeat(281));
  await expect(page.getByText("281 of 280 characters")).toBeVisible();
  await page.getByRole("button", { name: "Save posts" }).click();
  await expect(page.getByRole("alert")).toContainText("at most 280 characters");
  await short.fill("Our own short post");
  await page.getByRole("button", { name: "Save posts" }).click();
  await expect(page.getByText("Social posts saved.")).toBeVisible();
  await expect(short).toHaveValue("Our own short post");

  const download = page.waitForEvent("download");
  await page.getByRole("link", { name: "Download the pack (.zip)" }).click();
  const files = unzipSync(new Uint8Array(await readFile((await (await download).path()) ?? "")));
  const names = Object.keys(files).map((name) => name.split("/").pop());
  expect(names.sort()).toEqual([
    "link.png",
    "linkedin.txt",
    "quote-1.png",
    "short.txt",
    "square.png",
  ]);

  await page.getByRole("button", { name: "Reset to generated" }).click();
  await expect(page.getByText("Social posts made again from the newsletter.")).toBeVisible();
  await expect(short).toHaveValue(/utm_source=x/);
});
