import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { crossTenant } from "../../server/db/tenant-guard";
import { expect, test } from "./fixtures";
import { createSuperAdmin, signIn, withE2eDatabase } from "./staff";

/* Issue 35, target 6: Herald's sign-up form on another site (another origin), in real Chromium. */

const THANKS = "Thanks! Please check your inbox — we've sent you an email about your subscription.";

/** Serves one page at /partner.html from 127.0.0.1 (another origin than localhost:<port>). */
async function partnerSite(): Promise<{
  server: Server;
  origin: string;
  setPage(html: string): void;
}> {
  let page = "";
  const server = createServer((req, res) => {
    if (req.url !== "/partner.html") {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    origin: `http://127.0.0.1:${port}`,
    setPage(html) {
      page = html;
    },
  };
}

const consentPage = (email: string) =>
  withE2eDatabase(async (db) => {
    const row = await crossTenant(db)
      .selectFrom("subscriber_events")
      .innerJoin("subscribers", "subscribers.id", "subscriber_events.subscriber_id")
      .select(["subscriber_events.detail", "subscribers.status"])
      .where("subscribers.email", "=", email)
      .where("subscriber_events.kind", "=", "signed-up")
      .executeTakeFirst();
    return row ? { status: row.status, ...(JSON.parse(row.detail) as { page?: string }) } : null;
  });

test("a form pasted on another site, and the frame, sign a visitor up on Herald", async ({
  page,
}) => {
  const partner = await partnerSite();
  const shots = process.env.EMBED_SCREENSHOTS;
  try {
    await signIn(page, await createSuperAdmin("embed"));
    await page.goto("/admin/lists");
    await page.getByRole("link", { name: "Sign-up forms for your other websites" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Sign-up forms" })).toBeVisible();
    await page.getByRole("textbox", { name: "Sites", exact: true }).fill(`${partner.origin}/`);
    await page.getByRole("button", { name: "Save allowed sites" }).click();
    await expect(page.getByText("Allowed sites saved.")).toBeVisible();
    await expect(page.getByRole("textbox", { name: "Sites", exact: true })).toHaveValue(
      partner.origin,
    );
    const snippet = await page.getByLabel("HTML form code").inputValue();
    const iframe = await page.getByLabel("Frame code").inputValue();
    expect(snippet).toContain('action="http://localhost:');
    if (shots) {
      for (const width of [1280, 375]) {
        await page.setViewportSize({ width, height: 900 });
        await page.screenshot({ path: join(shots, `admin-embed-${width}.png`), fullPage: true });
      }
      await page.setViewportSize({ width: 1280, height: 720 });
    }

    partner.setPage(
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Partner</title></head><body><h1>Partner blog</h1>${snippet}<h2>Or in a frame</h2>${iframe}</body></html>`,
    );

    // The pasted HTML form: a plain post from 127.0.0.1 to localhost, answered by Herald.
    const visitor = await page
      .context()
      .browser()
      ?.newContext({
        extraHTTPHeaders: { "X-Forwarded-For": "203.0.113.35" },
      });
    if (!visitor) throw new Error("no browser");
    const reader = await visitor.newPage();
    await reader.goto(`${partner.origin}/partner.html`);
    const direct = `embed-direct-${Date.now()}@example.com`;
    await reader.locator("#herald-email").fill(direct);
    await reader.getByRole("checkbox", { name: "Industry News" }).check();
    await reader.getByRole("button", { name: "Subscribe" }).first().click();
    await expect(reader).toHaveURL(/^http:\/\/localhost:\d+\/embed\/subscribe$/);
    await expect(reader.getByTestId("embed-answer")).toHaveText(THANKS);
    await expect(reader.getByRole("link", { name: /^Back to 127\.0\.0\.1:/ })).toHaveAttribute(
      "href",
      `${partner.origin}/`,
    );
    // A cross-origin form post sends only the origin as Referer (the default policy).
    expect(await consentPage(direct)).toMatchObject({
      status: "unconfirmed",
      page: `${partner.origin}/`,
    });

    // The frame: rendered inside the partner's page (its CSP allows that origin), no script.
    await reader.goto(`${partner.origin}/partner.html`);
    const frame = reader.frameLocator('iframe[title="Subscribe to KeyDiscovery"]');
    await expect(frame.getByRole("heading", { name: "Subscribe to KeyDiscovery" })).toBeVisible();
    if (shots) {
      for (const width of [1280, 375]) {
        await reader.setViewportSize({ width, height: 900 });
        await reader.screenshot({
          path: join(shots, `partner-frame-${width}.png`),
          fullPage: true,
        });
      }
    }
    const framed = `embed-framed-${Date.now()}@example.com`;
    await frame.getByLabel("Email").fill(framed);
    await frame.getByRole("button", { name: "Subscribe" }).click();
    await expect(frame.getByTestId("embed-answer")).toHaveText(THANKS);
    // The partner's page is still the page around it.
    await expect(reader).toHaveURL(`${partner.origin}/partner.html`);
    if (shots) await reader.screenshot({ path: join(shots, "partner-frame-answer.png") });
    // The frame's page asked for the whole address of the page around it.
    expect(await consentPage(framed)).toMatchObject({
      status: "unconfirmed",
      page: `${partner.origin}/partner.html`,
    });
    await visitor.close();
  } finally {
    await new Promise((resolve) => partner.server.close(resolve));
  }
});
