import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest } from "../../server/db/migrate";
import { crossTenant } from "../../server/db/tenant-guard";
import { createNewsletter } from "../../server/newsletters/editing";
import {
  publishNewsletter,
  publishScheduledNewsletter,
  scheduleNewsletter,
  unpublishNewsletter,
} from "../../server/newsletters/newsletters";
import { createPreviewLink } from "../../server/newsletters/previews";
import { generateDkimKey } from "../../server/tenants/dkim";
import { seedTenants } from "../../server/tenants/seed";
import { getTenant } from "../../server/tenants/store";
import { getTenantView, settingsOf } from "../../server/tenants/views";
import { type ApiCallOptions, callApi } from "../support/api";
import { createStaffUser, signIn } from "../support/auth";
import {
  countRows,
  createTestDatabase,
  type TestDatabase,
  testDialects,
} from "../support/database";
import { postForm, sendAsEmail } from "../support/forms";
import { textOf } from "../support/html";
import { type RunningServer, startServer } from "../support/server";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink";
import { insertSubscriber } from "../support/subscribers";

/**
 * Issue 32, findings 15 and 16: the From address stays on the tenant's own domains wherever it is
 * set; a draft's share links die when it is published; a saved campaign's "Send now" goes through
 * the review.
 */
const SECRET = "sending-rules-secret-0123456789abcdef";
const FOREIGN = "evil@evil.example";
const OWN_DOMAIN_REFUSAL = "The sender address must be at one of this tenant's domains";

describe.each(testDialects())("sending rules on %s", (dialect) => {
  let database: TestDatabase;
  let sink: SmtpSink;
  let server: RunningServer;
  let newsletterId = "";
  const cookies = { editor: "", admin: "" };

  const post = (path: string, fields: Record<string, string | string[]>, cookie = cookies.editor) =>
    postForm(server.url, path, fields, cookie);
  const get = (path: string, cookie = cookies.editor) =>
    fetch(`${server.url}${path}`, { headers: { cookie }, redirect: "manual" });
  const api = (path: string, options: ApiCallOptions) => callApi(server.url, path, options);
  const fn = (name: string, data: unknown) =>
    api(`/api/functions/${name}`, { method: "POST", json: { data }, cookie: cookies.editor });
  const compose = (overrides: Record<string, string | string[]> = {}) => ({
    subject: "From whom?",
    senderName: "The Desk",
    senderEmail: FOREIGN,
    lists: ["newsletter"],
    mode: "now",
    intent: "create",
    ...overrides,
  });
  const campaigns = () => countRows(database.db, "campaigns");
  const campaignRow = (id: string) =>
    crossTenant(database.db)
      .selectFrom("campaigns")
      .select(["status", "from_email"])
      .where("id", "=", id)
      .executeTakeFirstOrThrow();
  const deliveries = (campaignId: string) =>
    crossTenant(database.db)
      .selectFrom("deliveries")
      .select((eb) => eb.fn.countAll<number>().as("count"))
      .where("campaign_id", "=", campaignId)
      .executeTakeFirstOrThrow()
      .then((row) => Number(row.count));
  /** a draft campaign of the published newsletter, made through the compose form */
  const draftCampaign = async (fields: Record<string, string> = {}) => {
    const made = await post(
      `/admin/newsletter/send/${newsletterId}`,
      compose({ senderEmail: "", mode: "draft", ...fields }),
    );
    expect(made.status, textOf(await made.clone().text())).toBe(303);
    return made.headers.get("location") ?? "";
  };

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    const tenant = (await getTenant(database.db, "main")).config;
    const { listTenantLists } = await import("../../server/subscribers/lists");
    const list = (await listTenantLists(database.db, tenant)).find(
      (each) => each.key === "newsletter",
    );
    for (const email of ["one@example.com", "two@example.com"]) {
      await insertSubscriber(database.db, { email, status: "active", listIds: [list?.id ?? 0] });
    }
    const scope = { db: database.db, tenantId: "main", authorId: null };
    newsletterId = (
      await createNewsletter(scope, { title: "Issue 1", excerpt: "", content: "<p>Hello</p>" })
    ).id;
    await publishNewsletter(scope, newsletterId);
    sink = await startSmtpSink();
    server = await startServer({
      databaseUrl: database.url,
      env: { SMTP_URL: sink.url, SESSION_SECRET: SECRET, SEND_RATE: "0" },
    });
    await createStaffUser(database.db, { email: "editor@example.com", products: { main: true } });
    await createStaffUser(database.db, { email: "chief@example.com", role: "super_admin" });
    cookies.editor = await signIn(server.url, "editor@example.com");
    cookies.admin = await signIn(server.url, "chief@example.com");
  });

  afterAll(async () => {
    await server?.stop();
    await sink?.stop();
    await database?.drop();
  });

  describe("finding 15: the From address", () => {
    it("refuses a From at someone else's domain on the send form, its review and its test send; nothing saved or sent", async () => {
      const before = await campaigns();
      const mails = sink.messages.length;
      for (const intent of ["create", "review", "test", "preview"]) {
        const answer = await post(`/admin/newsletter/send/${newsletterId}`, compose({ intent }));
        expect(answer.status, intent).toBe(400);
        expect(textOf(await answer.text()), intent).toContain(OWN_DOMAIN_REFUSAL);
      }
      expect(await campaigns()).toBe(before);
      expect(sink.messages.length).toBe(mails);
    });

    it("refuses it when a saved campaign or a welcome email is edited", async () => {
      const page = await draftCampaign();
      const edit = await post(`${page}/edit`, {
        subject: "Edited",
        senderEmail: FOREIGN,
        lists: ["newsletter"],
        mode: "draft",
      });
      expect(edit.status).toBe(400);
      expect(textOf(await edit.text())).toContain(OWN_DOMAIN_REFUSAL);
      expect((await campaignRow(page.split("/").pop() ?? "")).from_email).not.toBe(FOREIGN);

      const tenant = (await getTenant(database.db, "main")).config;
      const { listTenantLists } = await import("../../server/subscribers/lists");
      const list = (await listTenantLists(database.db, tenant)).find(
        (each) => each.key === "newsletter",
      );
      const before = await campaigns();
      const step = await post(`/admin/lists/${list?.id}/welcome/new`, {
        subject: "Welcome",
        content: "<p>Hi</p>",
        delayDays: "0",
        senderEmail: FOREIGN,
      });
      expect(step.status).toBe(400);
      expect(textOf(await step.text())).toContain(OWN_DOMAIN_REFUSAL);
      expect(await campaigns()).toBe(before);
    });

    it("refuses it through the functions API: createAndSendCampaign and sendEmail", async () => {
      const before = await campaigns();
      const mails = sink.messages.length;
      const created = await fn("createAndSendCampaign", {
        subject: "Spoof",
        content: "<p>Hi</p>",
        senderEmail: FOREIGN,
      });
      expect(created.status, created.text).toBe(400);
      expect(created.body.error?.message).toContain(OWN_DOMAIN_REFUSAL);
      for (const from of [`Someone <${FOREIGN}>`, { name: "Someone", email: FOREIGN }]) {
        const sent = await fn("sendEmail", {
          to: "one@example.com",
          subject: "Spoof",
          content: "<p>Hi</p>",
          from,
        });
        expect(sent.status, sent.text).toBe(400);
        expect(sent.body.error?.message).toContain(OWN_DOMAIN_REFUSAL);
      }
      expect(await campaigns()).toBe(before);
      expect(sink.messages.length).toBe(mails);
    });

    it("refuses it in the tenant's settings until a super admin lists the domain as a sender domain", async () => {
      const settings = settingsOf(await getTenantView(database.db, "main"));
      const put = (json: unknown) =>
        api("/api/tenants/main", { method: "PUT", json, cookie: cookies.admin });
      const foreign = await put({
        ...settings,
        email: { ...settings.email, senderEmail: FOREIGN },
      });
      expect(foreign.status, foreign.text).toBe(400);
      expect(foreign.body.error?.fields?.["email.senderEmail"]?.[0]).toContain(OWN_DOMAIN_REFUSAL);
      const template = await put({
        ...settings,
        emailTemplates: {
          ...settings.emailTemplates,
          welcomeEmail: { ...settings.emailTemplates.welcomeEmail, fromEmail: FOREIGN },
        },
      });
      expect(template.status, template.text).toBe(400);
      expect(template.body.error?.fields?.["emailTemplates.welcomeEmail.fromEmail"]?.[0]).toContain(
        OWN_DOMAIN_REFUSAL,
      );

      // The manager's form says so on the form, and saves nothing.
      const form = await post(
        "/admin/tenants/main",
        { intent: "save", name: "KeyDiscovery", "email.senderEmail": FOREIGN },
        cookies.admin,
      );
      expect(form.status).toBe(400);
      expect(textOf(await form.text())).toContain(OWN_DOMAIN_REFUSAL);
      expect((await getTenantView(database.db, "main")).email.senderEmail).not.toBe(FOREIGN);

      // A super admin owns the domain for the tenant: then it is the tenant's.
      const listed = await post(
        "/admin/tenants/main",
        {
          intent: "save",
          name: "KeyDiscovery",
          senderDomains: "herald-news.example, evil.example",
          "email.senderEmail": "desk@herald-news.example",
        },
        cookies.admin,
      );
      expect(listed.status, textOf(await listed.clone().text())).toBe(302);
      const saved = await getTenantView(database.db, "main");
      expect(saved.senderDomains).toEqual(["herald-news.example", "evil.example"]);
      expect(saved.email.senderEmail).toBe("desk@herald-news.example");
      const review = await post(
        `/admin/newsletter/send/${newsletterId}`,
        compose({ intent: "review", senderEmail: "news@mail.evil.example" }),
      );
      expect(review.status).toBe(200);
      // and unlisted again: no longer
      const unlisted = await api("/api/tenants/main", {
        method: "PUT",
        json: { ...settingsOf(saved), senderDomains: ["herald-news.example"] },
        cookie: cookies.admin,
      });
      expect(unlisted.status, unlisted.text).toBe(200);
      const refused = await post(
        `/admin/newsletter/send/${newsletterId}`,
        compose({ intent: "review", senderEmail: "news@mail.evil.example" }),
      );
      expect(refused.status).toBe(400);
    });

    it("takes the domain of the tenant's DKIM key, and the fixed sender's domain a fresh install sends from", async () => {
      await generateDkimKey(database.db, "chief@example.com", "main", {
        selector: "herald1",
        domain: "signed.example",
        algorithm: "ed25519",
      });
      const signed = await sendAsEmail(
        server.url,
        `/admin/newsletter/send/${newsletterId}`,
        compose({ senderEmail: "news@signed.example" }),
        cookies.editor,
      );
      expect(signed.status, textOf(await signed.clone().text())).toBe(303);
      const id = signed.headers.get("location")?.split("/").pop() ?? "";
      expect((await campaignRow(id)).from_email).toBe("news@signed.example");
      for (const senderEmail of ["newsletter@keydiscovery.com", "news@desk.keydiscovery.com"]) {
        const review = await post(
          `/admin/newsletter/send/${newsletterId}`,
          compose({ intent: "review", senderEmail }),
        );
        expect(review.status, senderEmail).toBe(200);
      }
    });
  });

  describe("finding 16: share links and Send now", () => {
    it("kills a draft's share links when it is published, by hand or on schedule; unpublishing does not bring them back", async () => {
      const scope = { db: database.db, tenantId: "main", authorId: null };
      for (const how of ["by hand", "on schedule"] as const) {
        const draft = await createNewsletter(scope, {
          title: `Shared draft ${how}`,
          excerpt: "",
          content: "<p>Secret plans</p>",
        });
        const link = await createPreviewLink(
          { db: database.db, tenantId: "main", sessionSecret: SECRET },
          draft.id,
        );
        const path = link?.path ?? "";
        expect((await get(path, "")).status, how).toBe(200);
        if (how === "by hand") {
          await publishNewsletter(scope, draft.id);
        } else {
          await scheduleNewsletter(scope, draft.id, {
            at: new Date(Date.now() + 60_000).toISOString(),
            send: false,
          });
          const later = new Date(Date.now() + 120_000).toISOString();
          expect(await publishScheduledNewsletter(database.db, "main", draft.id, later)).toBe(true);
        }
        await unpublishNewsletter(scope, draft.id);
        const after = await get(path, "");
        expect(after.status, how).toBe(404);
        expect(await after.text(), how).not.toContain("Secret plans");
      }
    });

    it("sends a saved draft campaign only through its review: an unreviewed 'Send now' shows the review and sends nothing", async () => {
      const page = await draftCampaign();
      const id = page.split("/").pop() ?? "";
      // The old confirmation, without the review's count and audience: nothing goes out.
      const unreviewed = await post(page, { action: "send", confirmed: "yes" });
      expect(unreviewed.status).toBe(200);
      const html = await unreviewed.text();
      expect(textOf(html)).toContain("Send to 2 recipients");
      expect(html).toContain('title="Email preview, phone width"');
      expect(textOf(html)).toContain("From");
      expect((await campaignRow(id)).status).toBe("draft");
      expect(await deliveries(id)).toBe(0);

      // A count the review did not show (the audience changed, or it was guessed): shown again.
      const shown = (name: string) =>
        new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? "";
      const guessed = await post(page, {
        action: "send",
        confirmedRecipients: "5",
        confirmedAudience: shown("confirmedAudience"),
      });
      expect(textOf(await guessed.text())).toContain("The audience changed since you reviewed it");
      expect((await campaignRow(id)).status).toBe("draft");

      // With what the review showed, it goes.
      const sent = await post(page, {
        action: "send",
        confirmedRecipients: shown("confirmedRecipients"),
        confirmedAudience: shown("confirmedAudience"),
      });
      expect(sent.status).toBe(200);
      expect((await campaignRow(id)).status).not.toBe("draft");
      expect(await deliveries(id)).toBe(2);
    });
  });
});
