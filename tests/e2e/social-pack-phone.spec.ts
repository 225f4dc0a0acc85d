import sharp from "sharp";
import { createNewsletter } from "../../server/newsletters/editing";
import { expect, type Page, test } from "./fixtures";
import { createSuperAdmin, signIn, withE2eDatabase } from "./staff";

/*
 * Issue 36, target 1: the social pack page and the tenant page on a phone (375 px), with the
 * tenant's logo uploaded — its /uploads/… address is one long word on the tenant page.
 */

const overflowsSideways = (page: Page) =>
  page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);

async function setLogo(page: Page, logoUrl: string) {
  const response = await page.request.patch("/api/tenants/main/branding", {
    data: { logoUrl },
    headers: { origin: new URL(page.url()).origin },
  });
  expect(response.status()).toBe(200);
}

test("the social pack and the tenant page fit a phone, the logo in the pack's images", async ({
  page,
}) => {
  await signIn(page, await createSuperAdmin("social"));
  const { id } = await withE2eDatabase((db) =>
    createNewsletter(
      { db, tenantId: "main", authorId: null },
      {
        title: "A newsletter shared from a phone",
        excerpt: "Its social pack, at 375 px.",
        content: "<h2>One point</h2><blockquote><p>Preserve first, argue later.</p></blockquote>",
      },
    ),
  );
  const logo = await sharp({
    create: { width: 300, height: 100, channels: 3, background: "#ff0000" },
  })
    .png()
    .toBuffer();
  const uploaded = await page.request.post("/admin/uploads", {
    multipart: { file: { name: "logo.png", mimeType: "image/png", buffer: logo } },
    headers: { origin: new URL(page.url()).origin },
  });
  expect(uploaded.status()).toBe(200);
  await setLogo(page, ((await uploaded.json()) as { url: string }).url);
  try {
    await page.setViewportSize({ width: 375, height: 800 });
    await page.goto(`/admin/newsletter/social/${id}`);
    expect(await overflowsSideways(page)).toBe(false);
    // Each action a button of one piece: inline, a narrow row broke one across two lines.
    for (const name of ["Download the pack (.zip)", "Post it on LinkedIn"]) {
      const link = page.getByRole("link", { name });
      expect(await link.evaluate((element) => element.getClientRects().length)).toBe(1);
      const box = await link.boundingBox();
      expect((box?.x ?? 0) + (box?.width ?? 0)).toBeLessThanOrEqual(375);
    }
    // The link image carries the logo: red in its header row.
    const image = page.getByRole("img", { name: /^Link share image/ });
    const source = await image.getAttribute("src");
    const png = await (await page.request.get(source ?? "")).body();
    const { data, info } = await sharp(png)
      .extract({ left: 0, top: 56, width: 1200, height: 56 })
      .raw()
      .toBuffer({ resolveWithObject: true });
    let red = 0;
    for (let at = 0; at < data.length; at += info.channels) {
      if ((data[at] ?? 0) > 230 && (data[at + 1] ?? 255) < 30 && (data[at + 2] ?? 255) < 30) red++;
    }
    expect(red).toBeGreaterThan(0.95 * 120 * 40);

    await page.goto("/admin/tenants/main");
    expect(await overflowsSideways(page)).toBe(false);
  } finally {
    await setLogo(page, "");
  }
});
