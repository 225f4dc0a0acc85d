import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest } from "../../server/db/migrate";
import { crossTenant } from "../../server/db/tenant-guard";
import { createTenant, saveTenantSettings } from "../../server/tenants/admin";
import { activatePendingDkimKey, generateDkimKey } from "../../server/tenants/dkim";
import { dnsLookup } from "../../server/tenants/dns";
import { readDomainCheck } from "../../server/tenants/domain-checks";
import {
  checkDomainHealth,
  type DkimKeyRecord,
  type DomainHealthInput,
} from "../../server/tenants/domain-health";
import { seedTenants } from "../../server/tenants/seed";
import { getTenantView, settingsOf } from "../../server/tenants/views";
import { createStaffUser, signIn } from "../support/auth";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { type FakeDns, startFakeDns, type Zone } from "../support/fake-dns";
import { postForm } from "../support/forms";
import { textOf } from "../support/html";
import { publishedNewsletter } from "../support/newsletters";
import { type RunningServer, startServer } from "../support/server";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink";
import { insertSubscriber } from "../support/subscribers";
import { scaled } from "../support/timing";

/*
 * Issue 36, target 5: a tenant's sender domain checked against a local DNS server's answers (SPF
 * against the relay's address, DKIM against the key Herald signs with, DMARC policy and alignment,
 * MX of the From and bounce domains), each record ok, missing or wrong with the exact record to
 * add; run from the tenant page and daily (across a restart); the review screen's warning when a
 * campaign would go out unsigned or unaligned; the complaint and bounce rates of 30 days.
 */

const DKIM_P = "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAtest";

function healthyZone(): Zone {
  return {
    "smtp.herald.test": { A: ["192.0.2.10"] },
    "spf.relay.test": { TXT: ["v=spf1 ip4:192.0.2.0/24 -all"] },
    "herald.test": {
      TXT: ["v=spf1 include:spf.relay.test ~all", "google-site-verification=abc"],
      MX: [{ priority: 10, exchange: "mx.herald.test" }],
    },
    "mx.herald.test": { A: ["192.0.2.25"] },
    "bounces.herald.test": {
      TXT: ["v=spf1 a:smtp.herald.test -all"],
      MX: [{ priority: 10, exchange: "mx.herald.test" }],
    },
    "s1._domainkey.herald.test": {
      // A long record arrives as several strings; the check joins them.
      TXT: [["v=DKIM1; k=rsa; ", `p=${DKIM_P}`]],
    },
    "_dmarc.herald.test": { TXT: ["v=DMARC1; p=quarantine; rua=mailto:dmarc@herald.test"] },
  };
}

const RSA_KEY: DkimKeyRecord = {
  algorithm: "rsa",
  selector: "s1",
  domain: "herald.test",
  recordName: "s1._domainkey.herald.test",
  recordValue: `v=DKIM1; k=rsa; p=${DKIM_P}`,
};

const ED25519_KEY: DkimKeyRecord = {
  algorithm: "ed25519",
  selector: "s3",
  domain: "herald.test",
  recordName: "s3._domainkey.herald.test",
  recordValue: "v=DKIM1; k=ed25519; p=11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=",
};

const INPUT: DomainHealthInput = {
  fromAddress: "news@herald.test",
  bounceDomain: "bounces.herald.test",
  sendingHost: "smtp.herald.test",
  bounceMxHost: "mx.herald.test",
  dkim: [RSA_KEY],
};

describe("the sender domain check against a local DNS server", () => {
  let dns: FakeDns;
  const check = async (input: DomainHealthInput = INPUT) => {
    const health = await checkDomainHealth(dnsLookup([dns.servers]), input);
    return { health, record: (key: string) => health.records.find((r) => r.key === key) };
  };

  beforeAll(async () => {
    dns = await startFakeDns(healthyZone());
  });
  afterAll(async () => {
    await dns?.close();
  });

  it("finds every record of a healthy domain ok", async () => {
    dns.zone = healthyZone();
    const { health } = await check();
    expect(health.sendingIps).toEqual(["192.0.2.10"]);
    expect(health.records.map((r) => [r.key, r.status])).toEqual([
      ["spf", "ok"],
      ["bounce-spf", "ok"],
      ["dkim", "ok"],
      ["dmarc", "ok"],
      ["mx", "ok"],
      ["bounce-mx", "ok"],
    ]);
    expect(health.dmarc).toMatchObject({
      policy: "quarantine",
      orgDomain: "herald.test",
      dkimAligned: true,
      spfAligned: true,
    });
    // The questions went to the local server, none elsewhere.
    expect(dns.asked).toContain("TXT s1._domainkey.herald.test");
  });

  it("says what is missing and gives the exact record to add", async () => {
    dns.zone = { "smtp.herald.test": { A: ["192.0.2.10"] }, "herald.test": {} };
    const { record } = await check();
    expect(record("spf")).toMatchObject({
      status: "missing",
      fix: { name: "herald.test", type: "TXT", value: "v=spf1 ip4:192.0.2.10 ~all" },
    });
    expect(record("bounce-spf")).toMatchObject({
      status: "missing",
      fix: { name: "bounces.herald.test", type: "TXT", value: "v=spf1 ip4:192.0.2.10 ~all" },
    });
    expect(record("dkim")).toMatchObject({
      status: "missing",
      fix: { name: RSA_KEY.recordName, type: "TXT", value: RSA_KEY.recordValue },
    });
    expect(record("dmarc")).toMatchObject({
      status: "missing",
      fix: { name: "_dmarc.herald.test", type: "TXT", value: "v=DMARC1; p=none; adkim=r; aspf=r" },
    });
    expect(record("bounce-mx")).toMatchObject({
      status: "missing",
      fix: { name: "bounces.herald.test", type: "MX", value: "10 mx.herald.test." },
    });
    expect(record("mx")?.status).toBe("missing");
  });

  it("says what is wrong: an SPF that leaves the relay out, another key, no alignment", async () => {
    dns.zone = healthyZone();
    dns.zone["herald.test"] = {
      TXT: ["v=spf1 ip4:198.51.100.7 -all"],
      MX: [{ priority: 10, exchange: "gone.herald.test" }],
    };
    dns.zone["s1._domainkey.herald.test"] = { TXT: ["v=DKIM1; k=rsa; p=MIIBsomeoneelse"] };
    dns.zone["_dmarc.herald.test"] = { TXT: ["v=DMARC1; p=reject; adkim=s; aspf=s"] };
    const { record } = await check({
      ...INPUT,
      dkim: [{ ...RSA_KEY, domain: "mail.herald.test" }],
    });
    expect(record("spf")).toMatchObject({
      status: "wrong",
      fix: { value: "v=spf1 ip4:198.51.100.7 ip4:192.0.2.10 -all" },
    });
    expect(record("spf")?.detail).toContain("SPF says fail for 192.0.2.10");
    expect(record("dkim")).toMatchObject({
      status: "wrong",
      fix: { value: RSA_KEY.recordValue },
    });
    // Strict alignment: d=mail.herald.test and bounces.herald.test are not herald.test; relaxed
    // DKIM alignment would do, so the fix is the same record with adkim=r.
    expect(record("dmarc")).toMatchObject({
      status: "wrong",
      fix: { name: "_dmarc.herald.test", value: "v=DMARC1; p=reject; adkim=r; aspf=s" },
    });
    expect(record("mx")).toMatchObject({ status: "wrong", found: ["10 gone.herald.test"] });
  });

  it("counts SPF's DNS lookups (at most 10) and finds two SPF records wrong", async () => {
    dns.zone = healthyZone();
    const chain: Zone = {};
    for (let i = 0; i < 11; i++)
      chain[`l${i}.relay.test`] = { TXT: [`v=spf1 include:l${i + 1}.relay.test`] };
    chain["l11.relay.test"] = { TXT: ["v=spf1 ip4:192.0.2.10 -all"] };
    Object.assign(dns.zone, chain);
    dns.zone["herald.test"] = { TXT: ["v=spf1 include:l0.relay.test -all"], MX: [] };
    dns.zone["bounces.herald.test"] = { TXT: ["v=spf1 -all", "v=spf1 ip4:192.0.2.10 -all"] };
    const { record } = await check();
    expect(record("spf")?.status).toBe("wrong");
    expect(record("spf")?.detail).toContain("permerror for 192.0.2.10 (more than 10 DNS lookups");
    expect(record("bounce-spf")).toMatchObject({
      status: "wrong",
      fix: { value: "v=spf1 ip4:192.0.2.10 -all" },
    });
  });

  it("finds DMARC at the organisational domain for a subdomain sender", async () => {
    dns.zone = healthyZone();
    const { health, record } = await check({ ...INPUT, fromAddress: "news@letters.herald.test" });
    expect(record("dmarc")?.status).toBe("ok");
    expect(health.dmarc).toMatchObject({ policyDomain: "herald.test", dkimAligned: true });
  });

  it("checks a rotation's new key before staff switch to it", async () => {
    dns.zone = healthyZone();
    const pendingDkim = [
      { ...ED25519_KEY, algorithm: "rsa" as const, recordValue: `v=DKIM1; k=rsa; p=${DKIM_P}new` },
    ];
    let { record } = await check({ ...INPUT, pendingDkim });
    expect(record("dkim")?.status).toBe("ok");
    expect(record("dkim-pending")).toMatchObject({
      status: "missing",
      label: "DKIM of the new key (publish before you switch)",
      fix: { name: "s3._domainkey.herald.test", type: "TXT", value: pendingDkim[0]?.recordValue },
    });
    dns.zone["s3._domainkey.herald.test"] = { TXT: [pendingDkim[0]?.recordValue ?? ""] };
    ({ record } = await check({ ...INPUT, pendingDkim }));
    expect(record("dkim-pending")).toMatchObject({ status: "ok", fix: null });
  });

  it("checks both keys of a tenant that signs with RSA and Ed25519", async () => {
    dns.zone = healthyZone();
    dns.zone[ED25519_KEY.recordName] = { TXT: [ED25519_KEY.recordValue] };
    const both = { ...INPUT, dkim: [RSA_KEY, ED25519_KEY] };
    let { health } = await check(both);
    const dkimRecords = () => health.records.filter((r) => r.key === "dkim");
    expect(dkimRecords().map((r) => [r.label, r.name, r.status])).toEqual([
      ["DKIM (RSA key, selector s1)", "s1._domainkey.herald.test", "ok"],
      ["DKIM (Ed25519 key, selector s3)", "s3._domainkey.herald.test", "ok"],
    ]);
    expect(health.dkim).toEqual([
      { selector: "s1", domain: "herald.test", algorithm: "rsa" },
      { selector: "s3", domain: "herald.test", algorithm: "ed25519" },
    ]);
    expect(dns.asked).toContain("TXT s3._domainkey.herald.test");

    // One of the two records taken down: that key's record is missing, the other still ok.
    delete dns.zone[ED25519_KEY.recordName];
    ({ health } = await check(both));
    expect(dkimRecords().map((r) => r.status)).toEqual(["ok", "missing"]);
    expect(dkimRecords()[1]).toMatchObject({
      detail:
        "No DKIM record at selector s3: receivers cannot verify the Ed25519 key's signatures.",
      fix: { name: ED25519_KEY.recordName, type: "TXT", value: ED25519_KEY.recordValue },
    });
    expect(health.records.find((r) => r.key === "dmarc")?.status).toBe("ok");
  });

  it("aligns DMARC with any signing key, and names a second algorithm's new key", async () => {
    dns.zone = healthyZone();
    dns.zone["_dmarc.herald.test"] = { TXT: ["v=DMARC1; p=reject; adkim=s; aspf=s"] };
    // The RSA key signs for another domain; the Ed25519 key for the From domain itself.
    const elsewhere = { ...RSA_KEY, domain: "other.test", recordName: "s1._domainkey.other.test" };
    const { health, record } = await check({ ...INPUT, dkim: [elsewhere, ED25519_KEY] });
    expect(health.dmarc.dkimAligned).toBe(true);
    expect(record("dmarc")).toMatchObject({ status: "ok", fix: null });
    expect(record("dmarc")?.detail).toContain(
      "DKIM d=other.test not aligned, d=herald.test aligned",
    );
    // Neither aligned: DMARC fails, and the note names the key's domain.
    const neither = await check({ ...INPUT, dkim: [elsewhere] });
    expect(neither.record("dmarc")).toMatchObject({ status: "wrong", fix: null });
    expect(neither.record("dmarc")?.fixNote).toContain("send from an address at other.test");

    // Signing with RSA, an Ed25519 key waiting to be added beside it.
    const adding = await check({ ...INPUT, pendingDkim: [ED25519_KEY] });
    expect(
      adding.health.records.filter((r) => r.key.startsWith("dkim")).map((r) => r.label),
    ).toEqual([
      "DKIM (RSA key, selector s1)",
      "DKIM of the new Ed25519 key (publish before you add it)",
    ]);
  });

  it("calls a record unchecked when the DNS server fails, never missing", async () => {
    dns.zone = healthyZone();
    dns.failing.add("_dmarc.herald.test");
    const { record } = await check();
    dns.failing.clear();
    expect(record("dmarc")?.status).toBe("unchecked");
    expect(record("dkim")?.status).toBe("ok");
  });
});

describe.each(testDialects())("sender domain health on the tenant page on %s", (dialect) => {
  let database: TestDatabase;
  let dns: FakeDns;
  let sink: SmtpSink;
  let server: RunningServer;
  let chief = "";
  let editor = "";
  let env: Record<string, string> = {};

  const page = async (tenantId = "main", cookie = chief) =>
    (await fetch(`${server.url}/admin/tenants/${tenantId}`, { headers: { cookie } })).text();
  const checkNow = (tenantId = "main", cookie = chief) =>
    postForm(
      server.url,
      `/admin/tenants/${tenantId}`,
      { intent: "domain-health:check", tenantId },
      cookie,
    );
  const statusOn = (html: string, key: string) =>
    new RegExp(`data-record="${key}" data-status="(\\w+)"`).exec(html)?.[1];
  const checks = () =>
    crossTenant(database.db)
      .selectFrom("domain_checks")
      .select(["tenant_id", "checked_at", "trigger", "next_check_at"])
      .orderBy("tenant_id")
      .execute();

  const review = async (tenantId: string, senderEmail: string) => {
    const id = await publishedNewsletter(database.db, tenantId, {
      title: `Review ${senderEmail}`,
      excerpt: "Checked before it goes.",
      content: "<p>Hello.</p>",
    });
    const answer = await postForm(
      server.url,
      `/admin/newsletter/send/${id}`,
      {
        intent: "review",
        subject: "A subject",
        senderName: "Herald",
        senderEmail,
        lists: ["newsletter"],
        mode: "now",
      },
      `${chief}; herald_subdomain=${tenantId}`,
    );
    expect(answer.status).toBe(200);
    const html = await answer.text();
    const warnings = /data-testid="sender-warnings"[\s\S]*?<\/div>/.exec(html)?.[0];
    return warnings ? textOf(warnings) : "";
  };

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    const main = settingsOf(await getTenantView(database.db, "main"));
    await saveTenantSettings(database.db, "test", "main", {
      ...main,
      senderDomains: ["herald.test"],
      email: { ...main.email, senderEmail: "news@herald.test" },
    });
    await createTenant(database.db, "test", { id: "acme", name: "Acme", domain: "acme.test" });
    await createTenant(database.db, "test", { id: "duo", name: "Duo", domain: "duo.test" });
    sink = await startSmtpSink();
    dns = await startFakeDns({});
    // The relay is the sink on 127.0.0.1: that is the address SPF must authorise.
    dns.zone = {
      ...healthyZone(),
      "herald.test": {
        TXT: ["v=spf1 ip4:127.0.0.1 -all"],
        MX: [{ priority: 10, exchange: "mx.herald.test" }],
      },
      "bounces.herald.test": {
        TXT: ["v=spf1 ip4:127.0.0.1 -all"],
        MX: [{ priority: 10, exchange: "mx.herald.test" }],
      },
    };
    env = {
      SMTP_URL: sink.url,
      DNS_SERVERS: dns.servers,
      BOUNCE_DOMAIN: "bounces.herald.test",
      SESSION_SECRET: "domain-health-secret-0123456789abcdef",
    };
    server = await startServer({ databaseUrl: database.url, env });
    await createStaffUser(database.db, { email: "chief@example.com", role: "super_admin" });
    await createStaffUser(database.db, { email: "editor@example.com", products: { main: true } });
    chief = await signIn(server.url, "chief@example.com");
    editor = await signIn(server.url, "editor@example.com");
  });

  afterAll(async () => {
    await server?.stop();
    await sink?.stop();
    await dns?.close();
    await database?.drop();
  });

  it("checks on demand from the tenant page: each record with its fix", async () => {
    expect(await checks()).toEqual([]);
    expect(textOf(await page())).toContain("Not checked yet.");
    // A key Herald signs with, not yet published.
    const generated = await postForm(
      server.url,
      "/admin/tenants/main",
      {
        intent: "dkim:generate",
        tenantId: "main",
        selector: "s2",
        domain: "herald.test",
        algorithm: "rsa",
      },
      chief,
    );
    expect(generated.status).toBe(302);
    const answer = await checkNow();
    expect(answer.status).toBe(302);
    expect(answer.headers.get("location")).toBe(
      "/admin/tenants/main?domainHealth=checked#domain-health",
    );
    let html = await page();
    expect(statusOn(html, "spf")).toBe("ok");
    expect(statusOn(html, "bounce-spf")).toBe("ok");
    expect(statusOn(html, "dkim")).toBe("missing");
    expect(statusOn(html, "dmarc")).toBe("ok");
    expect(statusOn(html, "bounce-mx")).toBe("ok");
    const key = await crossTenant(database.db)
      .selectFrom("dkim_keys")
      .select("public_key")
      .where("tenant_id", "=", "main")
      .executeTakeFirstOrThrow();
    // The fix is the record to publish, exactly as the DKIM section shows it.
    const fix = /data-fix="dkim"[\s\S]*?data-fix-value="true">([^<]+)</.exec(html)?.[1];
    expect(fix).toBe(`v=DKIM1; k=rsa; p=${key.public_key}`);
    expect(textOf(html)).toContain("s2._domainkey.herald.test");

    // Published: ok on the next check.
    dns.zone["s2._domainkey.herald.test"] = { TXT: [`v=DKIM1; k=rsa; p=${key.public_key}`] };
    expect((await checkNow()).status).toBe(302);
    html = await page();
    expect(statusOn(html, "dkim")).toBe("ok");
    expect(html).not.toContain('data-fix="dkim"');
    expect((await checks()).map((row) => [row.tenant_id, row.trigger])).toEqual([
      ["main", "staff"],
    ]);
  });

  it("lets only the tenant manager check, and limits how often", async () => {
    // An editor of the tenant cannot reach the tenant manager.
    const refused = await checkNow("main", editor);
    expect([302, 303, 403]).toContain(refused.status);
    // Five checks of a tenant in ten minutes; the sixth is refused.
    let last = 0;
    for (let i = 0; i < 5; i++) last = (await checkNow("acme")).status;
    expect(last).toBe(302);
    const limited = await checkNow("acme");
    expect(limited.status).toBe(429);
    expect(textOf(await limited.text())).toContain("wait a few minutes");
  });

  it("warns on the review screen when a campaign would go out unsigned or unaligned", async () => {
    // Signed with a key for herald.test, its record published: nothing to warn of.
    expect(await review("main", "news@herald.test")).toBe("");
    // From a domain the key does not cover: unaligned.
    expect(await review("main", "newsletter@keydiscovery.com")).toContain(
      "This campaign would go out unaligned: its From domain keydiscovery.com is not aligned with the DKIM signature's d=herald.test",
    );
    // No key at all: unsigned.
    expect(await review("acme", "newsletter@keydiscovery.com")).toContain(
      "This campaign would go out unsigned",
    );
    // The record taken down: the last check says so, and the review warns.
    delete dns.zone["s2._domainkey.herald.test"];
    expect((await checkNow()).status).toBe(302);
    expect(await review("main", "news@herald.test")).toContain(
      "the DKIM record at s2._domainkey.herald.test was missing",
    );
  });

  it("checks both keys of a tenant that signs with RSA and Ed25519, and warns of each", async () => {
    // duo signs with an RSA key for duo.test and an Ed25519 key for duo-mail.test.
    const duo = settingsOf(await getTenantView(database.db, "duo"));
    await saveTenantSettings(database.db, "test", "duo", {
      ...duo,
      email: { ...duo.email, senderEmail: "news@duo.test" },
    });
    const rsa = await generateDkimKey(database.db, "test", "duo", {
      selector: "r1",
      domain: "duo.test",
      algorithm: "rsa",
    });
    const ed25519 = await generateDkimKey(database.db, "test", "duo", {
      selector: "e1",
      domain: "duo-mail.test",
      algorithm: "ed25519",
    });
    Object.assign(dns.zone, {
      "duo.test": {
        TXT: ["v=spf1 ip4:127.0.0.1 -all"],
        MX: [{ priority: 10, exchange: "mx.herald.test" }],
      },
      "_dmarc.duo.test": { TXT: ["v=DMARC1; p=reject"] },
      [rsa.record.recordName]: { TXT: [rsa.record.recordValue] },
    });
    const records = async () =>
      [
        ...(await page("duo")).matchAll(
          /data-record="(dkim[\w-]*)" data-status="(\w+)" data-name="([^"]+)"[\s\S]*?<h3[^>]*>([^<]+)</g,
        ),
      ].map(([, key, status, name, label]) => [key, status, name, textOf(label ?? "")]);
    // The Ed25519 key waits to be added: its record is checked as the new key's.
    expect((await checkNow("duo")).status).toBe(302);
    expect(await records()).toEqual([
      ["dkim", "ok", "r1._domainkey.duo.test", "DKIM (RSA key, selector r1)"],
      [
        "dkim-pending",
        "missing",
        "e1._domainkey.duo-mail.test",
        "DKIM of the new Ed25519 key (publish before you add it)",
      ],
    ]);
    // Added while its record is still missing: the review knows from the last check.
    await activatePendingDkimKey(database.db, "test", "duo", "ed25519");
    expect(await review("duo", "news@duo.test")).toContain(
      "One of this campaign's DKIM signatures cannot be verified: at the last check",
    );

    // Both records published: both ok, nothing to warn of, from either key's domain.
    dns.zone[ed25519.record.recordName] = { TXT: [ed25519.record.recordValue] };
    expect((await checkNow("duo")).status).toBe(302);
    expect(await records()).toEqual([
      ["dkim", "ok", "r1._domainkey.duo.test", "DKIM (RSA key, selector r1)"],
      ["dkim", "ok", "e1._domainkey.duo-mail.test", "DKIM (Ed25519 key, selector e1)"],
    ]);
    expect(await review("duo", "news@duo.test")).toBe("");
    // Aligned with the Ed25519 key's d= only: aligned all the same.
    expect(await review("duo", "news@duo-mail.test")).toBe("");
    expect(await review("duo", "newsletter@keydiscovery.com")).toContain(
      "its From domain keydiscovery.com is not aligned with any DKIM signature's d= (duo.test, duo-mail.test)",
    );

    // The RSA record taken down: one signature fails, the other still verifies.
    delete dns.zone[rsa.record.recordName];
    expect((await checkNow("duo")).status).toBe(302);
    expect((await records()).map(([, status]) => status)).toEqual(["missing", "ok"]);
    let warnings = await review("duo", "news@duo.test");
    expect(warnings).toContain(
      "the DKIM record at r1._domainkey.duo.test was missing. Receivers that read only its RSA signature treat it as unsigned; only its Ed25519 signature can pass.",
    );
    expect(warnings).not.toContain("effectively unsigned");

    // Both taken down: effectively unsigned, both records named.
    delete dns.zone[ed25519.record.recordName];
    expect((await checkNow("duo")).status).toBe(302);
    warnings = await review("duo", "news@duo.test");
    expect(warnings).toContain(
      "This campaign would go out effectively unsigned: at the last check",
    );
    expect(warnings).toContain(
      "the DKIM record at r1._domainkey.duo.test was missing, and the DKIM record at e1._domainkey.duo-mail.test was missing, so receivers cannot verify either signature.",
    );
    expect(warnings).not.toContain("One of this campaign's DKIM signatures");
  });

  it("reads a check stored before two keys (one dkim object, or null) as a list", async () => {
    const stored = await readDomainCheck(database.db, "main");
    const health = { ...stored?.health, dkim: { selector: "s2", domain: "herald.test" } };
    const store = (result: unknown) =>
      crossTenant(database.db)
        .updateTable("domain_checks")
        .set({ result: JSON.stringify(result) })
        .where("tenant_id", "=", "main")
        .execute();
    await store(health);
    expect((await readDomainCheck(database.db, "main"))?.health.dkim).toEqual([
      { selector: "s2", domain: "herald.test" },
    ]);
    await store({ ...health, dkim: null });
    expect((await readDomainCheck(database.db, "main"))?.health.dkim).toEqual([]);
    await store(stored?.health);
  });

  it("shows the complaint and bounce rates of 30 days against the limits", async () => {
    const all = crossTenant(database.db);
    const now = new Date().toISOString();
    // 200 deliveries in the last 30 days (10 campaigns to 20 readers): 1 complaint, 3 bounces;
    // and an old complaint, outside the window.
    const readers: number[] = [];
    for (let i = 0; i < 20; i++) {
      readers.push(await insertSubscriber(database.db, { email: `rate-${i}@example.com` }));
    }
    const campaign = (id: string) => ({
      id,
      tenant_id: "main",
      newsletter_id: null,
      name: id,
      subject: "Rates",
      from_name: "Herald",
      from_email: "news@herald.test",
      content: "<p>x</p>",
      list_ids: "[]",
      track_opens: 0,
      track_clicks: 0,
      status: "sent" as const,
      scheduled_at: null,
      started_at: now,
      finished_at: now,
      created_by: null,
      created_at: now,
      updated_at: now,
    });
    const old = new Date(Date.now() - 40 * 86_400_000).toISOString();
    await all
      .insertInto("campaigns")
      .values([...Array.from({ length: 10 }, (_, c) => campaign(`rates-${c}`)), campaign("old")])
      .execute();
    const rows = Array.from({ length: 200 }, (_, i) => ({
      tenant_id: "main",
      campaign_id: `rates-${Math.floor(i / 20)}`,
      subscriber_id: readers[i % 20] ?? 0,
      email: `rate-${i % 20}@example.com`,
      status: "sent" as const,
      next_attempt_at: now,
      sent_at: now,
      complained_at: i === 0 ? now : null,
      bounced_at: i > 0 && i < 4 ? now : null,
    }));
    rows.push({
      ...rows[0],
      campaign_id: "old",
      sent_at: old,
      complained_at: old,
      bounced_at: null,
    } as (typeof rows)[number]);
    await all.insertInto("deliveries").values(rows).execute();
    const html = await page();
    const complaints = /data-rate="complaints" data-status="(\w+)">([^<]*)/.exec(html);
    expect(complaints?.[1]).toBe("over");
    expect(textOf(complaints?.[2] ?? "")).toContain("0.50% (1 of 200 delivered)");
    const bounces = /data-rate="bounces" data-status="(\w+)">([^<]*)/.exec(html);
    expect(bounces?.[1]).toBe("ok");
    expect(textOf(bounces?.[2] ?? "")).toContain("1.50% (3 hard bounces)");
    expect(textOf(html)).toContain("At or over Gmail's and Yahoo's limit of 0.3%");
    expect(textOf(html)).toContain("keep hard bounces under 2%");
  });

  it("checks every tenant daily, and a restart runs what fell due", async () => {
    await server.stop();
    const before = await checks();
    // main's check fell due while the server was down; acme's was not due.
    await crossTenant(database.db)
      .updateTable("domain_checks")
      .set({ next_check_at: new Date(Date.now() - 1_000).toISOString() })
      .where("tenant_id", "=", "main")
      .execute();
    server = await startServer({
      databaseUrl: database.url,
      env: { ...env, DOMAIN_CHECK_EVERY: "1d" },
    });
    const deadline = Date.now() + scaled(10_000);
    let after = await checks();
    while (after.find((row) => row.tenant_id === "main")?.trigger !== "daily") {
      expect(Date.now(), "the daily check did not run").toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 100));
      after = await checks();
    }
    const main = after.find((row) => row.tenant_id === "main");
    const acme = after.find((row) => row.tenant_id === "acme");
    expect(Date.parse(main?.next_check_at ?? "")).toBeGreaterThan(Date.now() + 86_000_000);
    // acme's check was not due: untouched.
    expect(acme).toEqual(before.find((row) => row.tenant_id === "acme"));
    chief = await signIn(server.url, "chief@example.com");
    expect(textOf(await page())).toContain("(daily check)");
  });
});
