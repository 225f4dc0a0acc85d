import { strFromU8, unzipSync } from "fflate";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tenantDb } from "../../server/db/tenant-guard";
import { createNewsletter } from "../../server/newsletters/editing";
import { publishNewsletter } from "../../server/newsletters/newsletters";
import { FRAME_MARGIN } from "../../server/social/images";
import { LINKEDIN_MAX, SOCIAL_MESSAGES } from "../../shared/schemas/social";
import { testDialects } from "../support/database";
import { postForm } from "../support/forms";
import { type StaffSite, startStaffSite } from "../support/staff-site";

const LONG_QUOTE =
  "The single most expensive mistake in eDiscovery is not over-collection; it is discovering, six months into litigation, that the data you needed was never preserved at all because nobody asked the right question on day one.";
const CONTENT = [
  "<p>Technology-assisted review is here to stay. Courts accept it.</p>",
  "<h2>Why recall matters</h2><p>Recall is what you found of what there was.</p>",
  "<blockquote><p>Preserve first, argue later.</p></blockquote>",
  "<h2>Validation and sampling</h2>",
  `<blockquote><p>${LONG_QUOTE}</p></blockquote>`,
  "<h2>What to ask your vendor</h2>",
  `<blockquote><p>${"An endless quote that no card can hold at a readable size. ".repeat(40)}</p></blockquote>`,
].join("");

/** A PNG decoded: its size, and whether its margin band is one colour while its inside is not. */
async function inspect(png: Uint8Array) {
  const image = sharp(png);
  const { width = 0, height = 0 } = await image.metadata();
  const { data, info } = await image.raw().toBuffer({ resolveWithObject: true });
  const at = (x: number, y: number) => {
    const offset = (y * info.width + x) * info.channels;
    return [data[offset], data[offset + 1], data[offset + 2]].join(",");
  };
  const band = new Set<string>();
  const inside = new Set<string>();
  const edge = FRAME_MARGIN - 8;
  for (let y = 0; y < info.height; y++) {
    for (let x = 0; x < info.width; x++) {
      const inBand = x < edge || y < edge || x >= info.width - edge || y >= info.height - edge;
      (inBand ? band : inside).add(at(x, y));
    }
  }
  return { width, height, band, inside, corner: at(0, 0) };
}

describe.each(testDialects())("the social pack on %s", (dialect) => {
  let site: StaffSite;
  let id: string;
  let otherId: string;
  const page = (path: string, cookie: string) =>
    fetch(`${site.server.url}${path}`, { headers: { cookie }, redirect: "manual" });
  const html = async (response: Response) =>
    (await response.text()).replaceAll("<!-- -->", "").replaceAll("&amp;", "&");
  const textarea = (body: string, name: string) =>
    new RegExp(`<textarea[^>]*name="${name}"[^>]*>([^<]*)</textarea>`).exec(body)?.[1] ?? null;

  beforeAll(async () => {
    site = await startStaffSite(dialect, "social-pack-secret-0123456789abcdef");
    const db = site.database.db;
    const created = await createNewsletter(
      { db, tenantId: "main", authorId: null },
      {
        title: "Five things about TAR",
        excerpt: "Technology-assisted review, explained for general counsel.",
        content: CONTENT,
        tags: [
          { slug: "ediscovery", name: "eDiscovery" },
          { slug: "legal-tech", name: "legal tech" },
        ],
      },
    );
    id = created.id;
    await publishNewsletter({ db, tenantId: "main" }, id);
    const other = await createNewsletter(
      { db, tenantId: "keydiscovery", authorId: null },
      {
        title:
          "Defensible collection in a world of ephemeral messaging: what courts expect from legal holds on Slack, Teams and WhatsApp in 2027 and beyond",
        excerpt: "",
        content: `<blockquote><p>${LONG_QUOTE}</p></blockquote>`,
      },
    );
    otherId = other.id;
  });

  afterAll(async () => {
    await site?.stop();
  });

  it("refuses anonymous visitors and another tenant's staff, and hides other tenants' newsletters", async () => {
    for (const path of [
      `/admin/newsletter/social/${id}`,
      `/admin/newsletter/social/${id}/pack.zip`,
      `/admin/newsletter/social/${id}/link.png`,
    ]) {
      const anonymous = await page(path, "");
      expect(anonymous.status).toBe(302);
      expect(anonymous.headers.get("location")).toContain("/admin/login");
      expect((await page(path, site.otherTenant)).status).toBe(403);
    }
    expect((await page(`/admin/newsletter/social/${otherId}`, site.editor)).status).toBe(404);
    expect((await page(`/admin/newsletter/social/${otherId}/pack.zip`, site.editor)).status).toBe(
      404,
    );
    expect((await page(`/admin/newsletter/social/${id}/nothing.png`, site.editor)).status).toBe(
      404,
    );
    const refused = await postForm(
      site.server.url,
      `/admin/newsletter/social/${id}`,
      { intent: "save", linkedIn: "Taken over", short: "Taken over" },
      site.otherTenant,
    );
    expect(refused.status).toBe(403);
  });

  it("makes the posts on first view: points, UTM links, hashtags; the editor links to it", async () => {
    const editor = await html(await page(`/admin/newsletter/edit/${id}`, site.editor));
    expect(editor).toContain(`href="/admin/newsletter/social/${id}"`);
    const response = await page(`/admin/newsletter/social/${id}`, site.editor);
    expect(response.status).toBe(200);
    const body = await html(response);
    const linkedIn = textarea(body, "linkedIn") ?? "";
    expect(linkedIn).toContain(
      "→ Why recall matters\n→ Validation and sampling\n→ What to ask your vendor",
    );
    expect(linkedIn).toContain(
      `${site.server.url}/newsletter/five-things-about-tar?utm_source=linkedin&utm_medium=social&utm_campaign=five-things-about-tar`,
    );
    expect(linkedIn).toContain("#eDiscovery #legalTech");
    const short = textarea(body, "short") ?? "";
    expect(short).toContain("utm_source=x&utm_medium=social");
    expect(short.length).toBeLessThanOrEqual(280);
    // Kept with the newsletter.
    const row = await tenantDb(site.database.db, "main")
      .selectFrom("newsletter_social")
      .selectAll()
      .where("newsletter_id", "=", id)
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ tenant_id: "main", linkedin_text: linkedIn, edited: 0 });
    // The quote too long for a card is said so, not cut.
    expect(body).toContain("This quote is too long to fit a card");
  });

  it("draws every image at its size, not blank, its text inside the frame", async () => {
    for (const [newsletter, cookie, quotes] of [
      [id, site.editor, 2],
      [otherId, site.superAdmin, 1],
    ] as const) {
      const query = newsletter === otherId ? "?subdomain=keydiscovery" : "";
      const body = await html(await page(`/admin/newsletter/social/${newsletter}${query}`, cookie));
      const urls = [...body.matchAll(/<img src="([^"]+)"/g)].map((match) => match[1] ?? "");
      expect(urls).toHaveLength(2 + quotes);
      for (const url of urls) {
        const separator = url.includes("?") ? "&" : "?";
        const target = newsletter === otherId ? `${url}${separator}subdomain=keydiscovery` : url;
        const response = await page(target, cookie);
        expect(response.status).toBe(200);
        expect(response.headers.get("content-type")).toBe("image/png");
        const seen = await inspect(new Uint8Array(await response.arrayBuffer()));
        expect([seen.width, seen.height]).toEqual(
          url.includes("/link.png") ? [1200, 627] : [1080, 1080],
        );
        // The margin band is the background alone; inside, text and marks in several colours.
        expect([...seen.band]).toEqual([seen.corner]);
        expect(seen.inside.size).toBeGreaterThan(20);
      }
    }
  });

  it("draws the tenant's logo in the header, and its initial when the logo is broken", async () => {
    const setLogo = async (logoUrl: string) => {
      const response = await fetch(`${site.server.url}/api/tenants/main/branding`, {
        method: "PATCH",
        headers: {
          cookie: site.superAdmin,
          origin: site.server.url,
          "content-type": "application/json",
        },
        body: JSON.stringify({ logoUrl }),
      });
      expect(response.status).toBe(200);
    };
    /** The red pixels of the link image's header row (FRAME_MARGIN to FRAME_MARGIN + 56). */
    const redInHeader = async () => {
      const body = await html(await page(`/admin/newsletter/social/${id}`, site.editor));
      const url = /<img src="([^"]*\/link\.png[^"]*)"/.exec(body)?.[1] ?? "";
      const response = await page(url, site.editor);
      expect(response.status).toBe(200);
      const { data, info } = await sharp(new Uint8Array(await response.arrayBuffer()))
        .raw()
        .toBuffer({ resolveWithObject: true });
      let red = 0;
      for (let y = FRAME_MARGIN; y < FRAME_MARGIN + 56; y++) {
        for (let x = 0; x < info.width; x++) {
          const at = (y * info.width + x) * info.channels;
          const [r = 0, g = 0, b = 0] = [data[at], data[at + 1], data[at + 2]];
          if (r > 230 && g < 30 && b < 30) red++;
        }
      }
      return red;
    };
    const form = new FormData();
    const logo = await sharp({
      create: { width: 300, height: 100, channels: 3, background: "#ff0000" },
    })
      .png()
      .toBuffer();
    form.set("file", new Blob([new Uint8Array(logo)], { type: "image/png" }), "logo.png");
    const uploaded = await fetch(`${site.server.url}/admin/uploads`, {
      method: "POST",
      body: form,
      headers: { cookie: site.superAdmin, origin: site.server.url },
    });
    expect(uploaded.status).toBe(200);
    const { url } = (await uploaded.json()) as { url: string };
    try {
      expect(await redInHeader()).toBe(0);
      await setLogo(url);
      // 300×100 scaled into the 40 px high row: 120×40 (an opaque upload is kept as JPEG, whose
      // edges blur a little).
      const logoPixels = await redInHeader();
      expect(logoPixels).toBeGreaterThan(0.95 * 120 * 40);
      expect(logoPixels).toBeLessThanOrEqual(120 * 40);
      // An upload that is not in the store: the initial again, and the pack still answers.
      await setLogo(`/uploads/main/${"0".repeat(32)}.png`);
      expect(await redInHeader()).toBe(0);
      expect(site.server.output()).toContain('"code":"social/logo-unusable"');
      const zip = await page(`/admin/newsletter/social/${id}/pack.zip`, site.editor);
      expect(zip.status).toBe(200);
    } finally {
      await setLogo("");
    }
  });

  it("downloads the pack as one zip: both posts as text, every image as PNG", async () => {
    const body = await html(await page(`/admin/newsletter/social/${id}`, site.editor));
    const response = await page(`/admin/newsletter/social/${id}/pack.zip`, site.editor);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/zip");
    expect(response.headers.get("content-disposition")).toBe(
      'attachment; filename="five-things-about-tar-social.zip"',
    );
    const files = unzipSync(new Uint8Array(await response.arrayBuffer()));
    const folder = "five-things-about-tar-social";
    expect(Object.keys(files).sort()).toEqual(
      ["link.png", "linkedin.txt", "quote-1.png", "quote-2.png", "short.txt", "square.png"].map(
        (name) => `${folder}/${name}`,
      ),
    );
    expect(strFromU8(files[`${folder}/linkedin.txt`] as Uint8Array)).toBe(
      `${textarea(body, "linkedIn")}\n`,
    );
    expect(strFromU8(files[`${folder}/short.txt`] as Uint8Array)).toBe(
      `${textarea(body, "short")}\n`,
    );
    const square = await inspect(files[`${folder}/square.png`] as Uint8Array);
    expect([square.width, square.height]).toEqual([1080, 1080]);
  });

  it("keeps staff's own words, refuses bad input without a change, and resets to generated", async () => {
    const path = `/admin/newsletter/social/${id}`;
    const saved = await postForm(
      site.server.url,
      path,
      { intent: "save", linkedIn: "Our own post\r\nwith two lines", short: "Short and ours" },
      site.editor,
    );
    expect(saved.status).toBe(303);
    expect(saved.headers.get("location")).toBe(`${path}?done=saved`);
    let body = await html(await page(`${path}?done=saved`, site.editor));
    expect(body).toContain(SOCIAL_MESSAGES.saved);
    expect(textarea(body, "linkedIn")).toBe("Our own post\nwith two lines");
    expect(textarea(body, "short")).toBe("Short and ours");

    const attempts: Record<string, string>[] = [
      { intent: "save", linkedIn: "x".repeat(LINKEDIN_MAX + 1), short: "fine" },
      { intent: "save", linkedIn: "fine", short: "y".repeat(281) },
      { intent: "save", linkedIn: "   ", short: "fine" },
      { intent: "save", short: "no LinkedIn post" },
      { intent: "take-over", linkedIn: "a", short: "b" },
    ];
    for (const fields of attempts) {
      const refused = await postForm(site.server.url, path, fields, site.editor);
      expect(refused.status).toBe(400);
    }
    const tooLong = await postForm(
      site.server.url,
      path,
      { intent: "save", linkedIn: "x".repeat(LINKEDIN_MAX + 1), short: "fine" },
      site.editor,
    );
    const tooLongPage = await html(tooLong);
    expect(tooLongPage).toContain(SOCIAL_MESSAGES.linkedInLong);
    // Only the field at fault is marked; the fine short post is not.
    const invalidFields = [...tooLongPage.matchAll(/<textarea[^>]*aria-invalid="true"[^>]*>/g)];
    expect(invalidFields.map((match) => /name="(\w+)"/.exec(match[0])?.[1])).toEqual(["linkedIn"]);
    // Blanks alone are an empty post, said in words (not zod's "expected string").
    const blank = await html(
      await postForm(
        site.server.url,
        path,
        { intent: "save", linkedIn: "  ", short: " " },
        site.editor,
      ),
    );
    expect(blank).toContain(SOCIAL_MESSAGES.linkedInEmpty);
    expect(blank).toContain(SOCIAL_MESSAGES.shortEmpty);
    expect(blank).not.toContain("expected string");
    body = await html(await page(path, site.editor));
    expect(textarea(body, "linkedIn")).toBe("Our own post\nwith two lines");

    const zip = unzipSync(
      new Uint8Array(await (await page(`${path}/pack.zip`, site.editor)).arrayBuffer()),
    );
    expect(strFromU8(zip["five-things-about-tar-social/short.txt"] as Uint8Array)).toBe(
      "Short and ours\n",
    );

    const reset = await postForm(site.server.url, path, { intent: "reset" }, site.editor);
    expect(reset.status).toBe(303);
    body = await html(await page(`${path}?done=reset`, site.editor));
    expect(body).toContain(SOCIAL_MESSAGES.reset);
    expect(textarea(body, "linkedIn")).toContain("→ Why recall matters");

    const missing = await postForm(
      site.server.url,
      `/admin/newsletter/social/${otherId}`,
      { intent: "save", linkedIn: "a", short: "b" },
      site.editor,
    );
    expect(missing.status).toBe(404);
  });
});
