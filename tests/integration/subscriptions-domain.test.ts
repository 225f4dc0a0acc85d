import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest } from "../../server/db/migrate";
import { crossTenant } from "../../server/db/tenant-guard";
import { retryFailedMail } from "../../server/mail/send";
import { verifyToken } from "../../server/mail/tokens";
import { smtpTransport, type Transport } from "../../server/mail/transport";
import { SubscriptionError } from "../../server/subscribers/errors";
import {
  applyPreferenceChange,
  requestPreferenceChange,
} from "../../server/subscribers/preferences";
import { confirmSignup, signUp } from "../../server/subscribers/signup";
import { findSubscriber, type SubscriptionContext } from "../../server/subscribers/subscribers";
import { unsubscribe } from "../../server/subscribers/unsubscribe";
import { seedTenants } from "../../server/tenants/seed";
import { getTenant } from "../../server/tenants/store";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink";

const SECRET = "test-secret-test-secret-test-secret-0123";

describe.each(testDialects())("subscriptions with real mail on %s", (dialect) => {
  let database: TestDatabase;
  let sink: SmtpSink;
  let transport: Transport;
  let ctx: SubscriptionContext;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    sink = await startSmtpSink();
    transport = smtpTransport(sink.url);
    const tenant = (await getTenant(database.db, "main")).config;
    ctx = {
      db: database.db,
      logger: pino({ level: "silent" }),
      transport,
      tenant: { ...tenant, features: { ...tenant.features, doubleOptIn: false } },
      origin: "http://localhost:3000",
      sessionSecret: SECRET,
    };
  });

  afterAll(async () => {
    transport?.close();
    await sink?.stop();
    await database?.drop();
  });

  it("signs up once, sends a branded welcome with RFC 8058 headers, and does not duplicate", async () => {
    const first = await signUp(ctx, {
      email: " Reader@Example.com ",
      name: "Rae",
      lists: ["newsletter", "industry-news"],
    });
    expect(first.outcome).toBe("subscribed");
    const mail = await sink.waitFor((m) => m.to.includes("reader@example.com"));
    expect(mail.subject).toBe(ctx.tenant.emailTemplates.welcomeEmail.subject);
    expect(mail.html).toContain("KeyDiscovery Newsletter");
    expect(mail.text).toContain("Industry News");
    expect(mail.headers.get("list-unsubscribe-post")).toBe("List-Unsubscribe=One-Click");
    const oneClick = mail.headers.get("list-unsubscribe")?.match(/<(http[^>]+)>/)?.[1] ?? "";
    const token = oneClick.split("/").pop();
    expect(verifyToken(SECRET, token, "unsubscribe")?.subscriberId).toBe(first.subscriberId);
    expect(mail.headers.get("list-unsubscribe")).toContain("mailto:");

    const again = await signUp(ctx, { email: "reader@example.com", lists: ["newsletter"] });
    expect(again.subscriberId).toBe(first.subscriberId);
    const rows = await crossTenant(database.db)
      .selectFrom("subscribers")
      .selectAll()
      .where("email", "=", "reader@example.com")
      .execute();
    expect(rows).toHaveLength(1);
    expect((await findSubscriber(ctx, "READER@example.com"))?.lists).toEqual([
      "newsletter",
      "industry-news",
    ]);
  });

  it("refuses a sign-up to no valid list", async () => {
    await expect(signUp(ctx, { email: "x@example.com", lists: ["nope", 9999] })).rejects.toThrow(
      "No valid groups specified",
    );
  });

  it("double opt-in: confirms by link before welcoming", async () => {
    const optIn = {
      ...ctx,
      tenant: { ...ctx.tenant, features: { ...ctx.tenant.features, doubleOptIn: true } },
    };
    const result = await signUp(optIn, { email: "careful@example.com" });
    expect(result.outcome).toBe("confirmation-sent");
    expect((await findSubscriber(ctx, "careful@example.com"))?.status).toBe("unconfirmed");
    const mail = await sink.waitFor((m) => m.to.includes("careful@example.com"));
    expect(mail.text).toContain("/subscription/confirm/");
    await confirmSignup(optIn, result.subscriberId);
    expect((await findSubscriber(ctx, "careful@example.com"))?.status).toBe("active");
    await sink.waitFor(
      (m) =>
        m.to.includes("careful@example.com") &&
        m.subject === ctx.tenant.emailTemplates.welcomeEmail.subject,
    );
  });

  it("applies a preference change only through its emailed, single-use, 24-hour token", async () => {
    await requestPreferenceChange(ctx, {
      email: "reader@example.com",
      activeLists: ["product-updates"],
    });
    const mail = await sink.waitFor(
      (m) =>
        m.to.includes("reader@example.com") &&
        m.subject === ctx.tenant.emailTemplates.verificationEmail.subject,
    );
    const link = new URL(
      mail.text.match(/http:\/\/localhost:3000\/subscription\/preferences\?[^\s\])]+/)?.[0] ?? "",
    );
    const token = link.searchParams.get("token") ?? "";
    expect(link.searchParams.get("email")).toBe("reader@example.com");

    await expect(
      applyPreferenceChange(ctx, { email: "reader@example.com", token: "wrong" }),
    ).rejects.toThrow("Invalid or expired verification link. Please try again.");
    const late = new Date(Date.now() + 86_400_001);
    await expect(
      applyPreferenceChange(ctx, { email: "reader@example.com", token }, late),
    ).rejects.toBeInstanceOf(SubscriptionError);
    const view = await applyPreferenceChange(ctx, { email: "reader@example.com", token });
    expect(view.lists).toEqual(["product-updates"]);
    await sink.waitFor(
      (m) =>
        m.to.includes("reader@example.com") &&
        m.subject === ctx.tenant.emailTemplates.confirmationEmail.subject,
    );
    await expect(
      applyPreferenceChange(ctx, { email: "reader@example.com", token }),
    ).rejects.toThrow("Invalid or expired");
  });

  it("a token of another subscriber does not work", async () => {
    await signUp(ctx, { email: "other@example.com" });
    await requestPreferenceChange(ctx, { email: "other@example.com", activeLists: [] });
    const mail = await sink.waitFor(
      (m) =>
        m.to.includes("other@example.com") &&
        m.subject === ctx.tenant.emailTemplates.verificationEmail.subject,
    );
    const token =
      new URL(
        mail.text.match(/http:\/\/localhost:3000\/subscription\/preferences\?[^\s\])]+/)?.[0] ?? "",
      ).searchParams.get("token") ?? "";
    await expect(
      applyPreferenceChange(ctx, { email: "reader@example.com", token }),
    ).rejects.toThrow("Invalid or expired");
  });

  it("unsubscribes an active subscriber once", async () => {
    await unsubscribe(ctx, { email: "reader@example.com" });
    const view = await findSubscriber(ctx, "reader@example.com");
    expect(view).toMatchObject({ status: "unsubscribed", lists: [] });
    await expect(unsubscribe(ctx, { email: "reader@example.com" })).rejects.toThrow(
      "Subscriber is not active",
    );
    await expect(unsubscribe(ctx, { email: "ghost@example.com" })).rejects.toThrow(
      "Subscriber not found. Please check your email address.",
    );
  });

  it("drops a preference change whose verification mail failed, and never sends that mail later", async () => {
    await signUp(ctx, { email: "late@example.com" });
    sink.answer = (to) => (to === "late@example.com" ? 451 : undefined);
    await expect(
      requestPreferenceChange(ctx, { email: "late@example.com", activeLists: [] }),
    ).rejects.toThrow("Failed to send verification email. Please try again.");
    sink.answer = () => undefined;
    const subscriber = await findSubscriber(ctx, "late@example.com");
    const pending = await crossTenant(database.db)
      .selectFrom("preference_changes")
      .selectAll()
      .where("subscriber_id", "=", subscriber?.id ?? 0)
      .execute();
    expect(pending).toEqual([]);
    const row = await crossTenant(database.db)
      .selectFrom("mail_log")
      .selectAll()
      .where("to_address", "=", "late@example.com")
      .where("kind", "=", "verification")
      .executeTakeFirstOrThrow();
    expect(row).toMatchObject({ status: "failed", next_attempt_at: null });
    expect(
      await retryFailedMail(
        { db: database.db, transport, logger: ctx.logger },
        new Date(Date.now() + 3_600_000),
      ),
    ).toBe(0);
  });

  it("names a tenant without a domain in its links", async () => {
    const kd = (await getTenant(database.db, "keydiscovery")).config;
    const kdCtx = { ...ctx, tenant: { ...kd, features: { ...kd.features, doubleOptIn: false } } };
    await signUp(kdCtx, { email: "kd-reader@example.com" });
    const mail = await sink.waitFor((m) => m.to.includes("kd-reader@example.com"));
    expect(mail.headers.get("list-unsubscribe")).toMatch(
      /one-click\/[^>]+\?subdomain=keydiscovery>/,
    );
  });

  it("records a message SMTP refuses as failed, tells the caller, and retries it later", async () => {
    sink.answer = (to) => (to === "flaky@example.com" ? 451 : undefined);
    await expect(
      requestPreferenceChange(ctx, { email: "flaky@example.com", activeLists: [] }),
    ).rejects.toThrow("Subscriber not found");
    await signUp(ctx, { email: "flaky@example.com" }).catch((error: unknown) => error);
    const failed = await crossTenant(database.db)
      .selectFrom("mail_log")
      .selectAll()
      .where("to_address", "=", "flaky@example.com")
      .execute();
    expect(failed.at(-1)).toMatchObject({ status: "failed", attempts: 1 });
    expect(failed.at(-1)?.error).toMatch(/451|Try again/);

    sink.answer = () => undefined;
    const sent = await retryFailedMail(
      { db: database.db, transport, logger: ctx.logger },
      new Date(Date.now() + 120_000),
    );
    expect(sent).toBe(1);
    await sink.waitFor((m) => m.to.includes("flaky@example.com"));
    const after = await crossTenant(database.db)
      .selectFrom("mail_log")
      .selectAll()
      .where("to_address", "=", "flaky@example.com")
      .execute();
    expect(after.at(-1)).toMatchObject({ status: "sent", attempts: 2 });
  });
});
