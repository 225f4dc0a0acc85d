import { dkimVerify } from "mailauth/lib/dkim/verify";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migrateToLatest } from "../../server/db/migrate";
import { crossTenant } from "../../server/db/tenant-guard";
import { dkimPrivateKeyAt } from "../../server/mail/dkim";
import { retryFailedMail } from "../../server/mail/send";
import { smtpTransport } from "../../server/mail/transport";
import { getSecretBox } from "../../server/secret-box";
import { listTenantLists } from "../../server/subscribers/lists";
import { createTenant, saveTenantSettings } from "../../server/tenants/admin";
import { seedTenants } from "../../server/tenants/seed";
import { getTenant } from "../../server/tenants/store";
import { getTenantView, settingsOf } from "../../server/tenants/views";
import { createStaffUser, signIn } from "../support/auth";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { postForm, sendAsEmail } from "../support/forms";
import { textOf } from "../support/html";
import { publishedNewsletter } from "../support/newsletters";
import { type RunningServer, startServer } from "../support/server";
import { type ReceivedMail, type SmtpSink, startSmtpSink } from "../support/smtp-sink";
import { insertSubscriber } from "../support/subscribers";

/*
 * Issue 12, part 5: a super admin generates a tenant's DKIM key on the tenant manager page, the
 * page shows the TXT record, and every mail of the tenant arrives signed at a real SMTP server on
 * loopback — verified by an independent verifier (mailauth) that looks the key up in "DNS" as
 * published from the page. The private key never leaves the server.
 */

const SECRET = "dkim-secret-dkim-secret-0123456789abcdef";

interface PublishedRecord {
  name: string;
  value: string;
}

/** The TXT records "published" so far, as staff copied them from the page. */
const dns = new Map<string, string>();

/** mailauth's DNS lookups, answered from what the page showed (values split as DNS does at 255). */
async function resolver(name: string, rrtype: string): Promise<string[][]> {
  const value = rrtype === "TXT" ? dns.get(name.toLowerCase()) : undefined;
  if (!value) throw Object.assign(new Error(`queryTxt ENOTFOUND ${name}`), { code: "ENOTFOUND" });
  return [value.match(/.{1,255}/g) ?? []];
}

async function verify(mail: ReceivedMail) {
  const result = await dkimVerify(mail.raw, { resolver });
  return result.results;
}

/** The record name and value the page shows (data-dkim attributes of the record). */
function recordsOn(html: string): PublishedRecord[] {
  const names = [...html.matchAll(/data-dkim="name"[^>]*>([^<]+)</g)].map((m) => m[1] ?? "");
  const values = [...html.matchAll(/data-dkim="value"[^>]*>([^<]+)</g)].map((m) => m[1] ?? "");
  return names.map((name, index) => ({ name, value: values[index] ?? "" }));
}

/** The base64 body of a PEM, and each of its lines: none may appear anywhere staff can read. */
function secretParts(pem: string): string[] {
  const lines = pem
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith("-----"));
  return [lines.join(""), ...lines.filter((line) => line.length >= 40)];
}

describe.each(testDialects())("DKIM per tenant on %s", (dialect) => {
  let database: TestDatabase;
  let sink: SmtpSink;
  let server: RunningServer;
  let chief = "";
  let editor = "";
  let clients = 0;

  const post = (path: string, fields: Record<string, string | string[]>, cookie = chief) =>
    postForm(server.url, path, fields, cookie);
  const get = (path: string, cookie = chief) =>
    fetch(`${server.url}${path}`, { headers: { cookie }, redirect: "manual" });
  const dkimForm = (fields: Record<string, string>, tenantId = "main") =>
    post(`/admin/tenants/${tenantId}`, { tenantId, ...fields });
  const generate = (
    selector: string,
    domain = "keydiscovery.com",
    algorithm = "rsa",
    tenantId = "main",
  ) => dkimForm({ intent: "dkim:generate", selector, domain, algorithm }, tenantId);
  const keyRows = () =>
    crossTenant(database.db).selectFrom("dkim_keys").selectAll().orderBy("id").execute();
  const changeCount = async () =>
    (await crossTenant(database.db).selectFrom("tenant_changes").select("id").execute()).length;
  /** A visitor's sign-up: the tenant has no double opt-in, so a welcome goes out at once. */
  const signUp = (email: string, tenant = "main") => {
    clients += 1;
    return fetch(`${server.url}/newsletter/subscribe`, {
      method: "POST",
      body: new URLSearchParams({ email }),
      headers: {
        cookie: `herald_subdomain=${tenant}`,
        "x-forwarded-for": `203.0.113.${clients}`,
      },
      redirect: "manual",
    });
  };
  const welcomeOf = async (email: string, tenant = "main") => {
    expect((await signUp(email, tenant)).status).toBe(303);
    return sink.waitFor((mail) => mail.to.includes(email));
  };
  const publish = (record: PublishedRecord) => dns.set(record.name.toLowerCase(), record.value);

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    const main = settingsOf(await getTenantView(database.db, "main"));
    const noDoubleOptIn = { ...main.features, doubleOptIn: false };
    await saveTenantSettings(database.db, "test", "main", { ...main, features: noDoubleOptIn });
    await createTenant(
      database.db,
      "test",
      { id: "acme", name: "Acme", domain: "acme.example.com" },
      { features: noDoubleOptIn },
    );
    const lists = await listTenantLists(database.db, (await getTenant(database.db, "main")).config);
    const newsletter = lists.find((list) => list.key === "newsletter");
    await insertSubscriber(database.db, {
      email: "reader@example.com",
      listIds: [newsletter?.id ?? 0],
    });
    sink = await startSmtpSink();
    server = await startServer({
      databaseUrl: database.url,
      env: { SMTP_URL: sink.url, SESSION_SECRET: SECRET, SEND_RATE: "0" },
    });
    await createStaffUser(database.db, { email: "chief@example.com", role: "super_admin" });
    await createStaffUser(database.db, { email: "editor@example.com", products: { main: true } });
    chief = await signIn(server.url, "chief@example.com");
    editor = await signIn(server.url, "editor@example.com");
  });

  afterAll(async () => {
    await server?.stop();
    await sink?.stop();
    await database?.drop();
  });

  it("refuses anyone but super admins, and changes nothing", async () => {
    const anonymous = await post(
      "/admin/tenants/main",
      { intent: "dkim:generate", tenantId: "main", selector: "s1", domain: "keydiscovery.com" },
      "",
    );
    expect(anonymous.status).toBe(302);
    expect(anonymous.headers.get("location")).toMatch(/^\/login\?redirectTo=/);
    const byEditor = await post(
      "/admin/tenants/main",
      { intent: "dkim:generate", tenantId: "main", selector: "s1", domain: "keydiscovery.com" },
      editor,
    );
    expect(byEditor.status).toBe(302);
    expect(byEditor.headers.get("location")).toBe("/unauthorized");
    expect((await get("/admin/tenants/main", editor)).headers.get("location")).toBe(
      "/unauthorized",
    );
    expect(await keyRows()).toEqual([]);
  });

  it("refuses bad input with a clear error and changes nothing", async () => {
    const before = await changeCount();
    const cases: [Record<string, string>, string][] = [
      [{ selector: "" }, "Selector is required"],
      [{ selector: "   " }, "Selector is required"],
      [{ selector: "a b" }, "Selector may only use letters, digits and hyphens"],
      [{ selector: "-herald" }, "may not start or end with a hyphen"],
      [{ selector: "x".repeat(64) }, "Selector must be at most 63 characters"],
      [{ selector: "<b>herald</b>" }, "Selector may only use letters, digits and hyphens"],
      [{ selector: "herald1", domain: "<script>alert(1)</script>" }, "Domain must be a host name"],
      [{ selector: "herald1", domain: "" }, "Domain is required"],
      [{ selector: "herald1", algorithm: "dsa" }, "Key type must be RSA-2048 or Ed25519"],
    ];
    for (const [fields, message] of cases) {
      const response = await dkimForm({
        intent: "dkim:generate",
        domain: "keydiscovery.com",
        algorithm: "rsa",
        ...fields,
      });
      expect(response.status, JSON.stringify(fields)).toBe(400);
      const html = await response.text();
      expect(textOf(html)).toContain("The DKIM key was not changed.");
      expect(textOf(html)).toContain(message);
      // What was typed comes back escaped, never as markup.
      expect(html).not.toContain("<script>alert(1)</script>");
      expect(html).not.toContain("<b>herald</b>");
    }
    // A form shown for another tenant (or forged to name one) acts on neither.
    const otherTenant = await post("/admin/tenants/main", {
      intent: "dkim:generate",
      tenantId: "acme",
      selector: "herald1",
      domain: "acme.example.com",
      algorithm: "rsa",
    });
    expect(otherTenant.status).toBe(400);
    expect(textOf(await otherTenant.text())).toContain(
      "This form belongs to another tenant; reload the page and try again",
    );
    const missing = await post("/admin/tenants/nobody", {
      intent: "dkim:generate",
      tenantId: "nobody",
      selector: "herald1",
      domain: "keydiscovery.com",
      algorithm: "rsa",
    });
    expect(missing.status).toBe(404);
    // Nothing to switch to or remove yet.
    expect((await dkimForm({ intent: "dkim:activate" })).status).toBe(409);
    expect((await dkimForm({ intent: "dkim:remove", confirm: "on" })).status).toBe(409);
    expect(await keyRows()).toEqual([]);
    expect(await changeCount()).toBe(before);
  });

  it("generates a key on the page, shows the TXT record, and never sends the private key back", async () => {
    const page = await (await get("/admin/tenants/main")).text();
    const selector = /id="dkim-selector"[^>]*value="([^"]*)"/.exec(page)?.[1] ?? "";
    const domain = /id="dkim-domain"[^>]*value="([^"]*)"/.exec(page)?.[1] ?? "";
    expect(selector).toMatch(/^herald\d{8}$/);
    expect(domain).toBe("keydiscovery.com"); // the sender address's domain
    expect(textOf(page)).toContain("No DKIM key: this tenant's mail goes out unsigned.");

    const response = await generate(selector, domain);
    expect(response.status).toBe(302);
    expect(response.headers.get("location")).toBe("/admin/tenants/main?dkim=generated#dkim");

    const html = await (await get("/admin/tenants/main?dkim=generated")).text();
    expect(textOf(html)).toContain("DKIM key generated.");
    const [record] = recordsOn(html);
    expect(record?.name).toBe(`${selector}._domainkey.keydiscovery.com`);
    expect(record?.value).toMatch(/^v=DKIM1; k=rsa; p=[A-Za-z0-9+/]+=*$/);
    expect(textOf(html)).toContain("RSA-2048");
    if (record) publish(record);

    const [row] = await keyRows();
    expect(row?.status).toBe("active");
    // Sealed at rest (decision 027); the server opens it with the same key as this process.
    expect(row?.private_key).toMatch(/^v1\./);
    const pem = row ? getSecretBox().open(row.private_key, dkimPrivateKeyAt(row)) : "";
    expect(pem).toContain("BEGIN PRIVATE KEY");
    const secrets = secretParts(pem);
    const readable = [
      html,
      await (await get("/admin/tenants/main.data")).text(),
      await (await get("/admin/tenants/main?edit=1")).text(),
      await (await get("/api/tenants/main")).text(),
      await (await get("/api/tenants")).text(),
      await (await get("/api/tenants/main", "")).text(),
    ];
    for (const body of readable) {
      expect(body).not.toContain("PRIVATE KEY");
      for (const secret of secrets) expect(body).not.toContain(secret);
    }
    // The loader data carries the public record (so the page can show it) and nothing more.
    expect(readable[1]).toContain(record?.value.slice(-40));
    // The audit history names the key, not its secret.
    const history = await crossTenant(database.db)
      .selectFrom("tenant_changes")
      .select("changes")
      .execute();
    expect(JSON.stringify(history)).toContain(`${selector}._domainkey.keydiscovery.com (RSA-2048)`);
    for (const secret of secrets) expect(JSON.stringify(history)).not.toContain(secret);
  });

  it("signs a campaign: the received message verifies against the published record", async () => {
    const id = await publishedNewsletter(database.db, "main", {
      title: "Signed and sealed",
      excerpt: "A campaign that verifies.",
      content: '<p>Read <a href="https://example.com/ruling">the ruling</a>.</p>',
    });
    const sent = await sendAsEmail(
      server.url,
      `/admin/newsletter/send/${id}`,
      {
        subject: "Signed and sealed",
        senderName: "Herald Editors",
        senderEmail: "newsletter@keydiscovery.com",
        lists: ["newsletter"],
        trackOpens: "on",
        trackClicks: "on",
        mode: "now",
      },
      chief,
    );
    expect(sent.status).toBe(303);
    const mail = await sink.waitFor(
      (each) => each.to.includes("reader@example.com") && each.subject === "Signed and sealed",
      20_000,
    );
    const signature = mail.headers.get("dkim-signature") ?? "";
    expect(signature).toContain("d=keydiscovery.com");
    // RFC 8058 §4: the one-click unsubscribe headers are covered by the signature.
    expect(signature.replace(/\s/g, "")).toMatch(/h=[^;]*list-unsubscribe:list-unsubscribe-post/i);
    const results = await verify(mail);
    expect(results).toHaveLength(1);
    expect(results[0]?.status.result).toBe("pass");
    expect(results[0]?.signingDomain).toBe("keydiscovery.com");
    // The verifier is not a rubber stamp: a changed subject fails.
    const tampered = Buffer.from(
      mail.raw
        .toString("latin1")
        .replace("Subject: Signed and sealed", "Subject: Signed and changed"),
      "latin1",
    );
    const forged = await dkimVerify(tampered, { resolver });
    expect(forged.results[0]?.status.result).toBe("fail");
  });

  it("signs transactional mail (a welcome) and mail retried from mail_log", async () => {
    const welcome = await welcomeOf("welcome@example.com");
    expect(welcome.subject).toBe("Welcome to our newsletter");
    const results = await verify(welcome);
    expect(results.map((result) => result.status.result)).toEqual(["pass"]);

    // A message the SMTP server refused for now is rebuilt from its mail_log row and signed then.
    sink.answer = (to) => (to === "later@example.com" ? 451 : undefined);
    const refused = await signUp("later@example.com");
    sink.answer = () => undefined;
    expect(refused.status).not.toBe(303);
    const row = await crossTenant(database.db)
      .selectFrom("mail_log")
      .selectAll()
      .where("to_address", "=", "later@example.com")
      .executeTakeFirstOrThrow();
    expect(row.status).toBe("failed");
    expect(row.tenant_id).toBe("main");
    expect(JSON.stringify(row)).not.toContain("PRIVATE KEY");
    const transport = smtpTransport(sink.url, 1);
    try {
      const retried = await retryFailedMail(
        { db: database.db, transport, logger: pino({ level: "silent" }) },
        new Date(Date.now() + 24 * 60 * 60_000),
      );
      expect(retried).toBeGreaterThanOrEqual(1);
    } finally {
      transport.close();
    }
    const later = await sink.waitFor((mail) => mail.to.includes("later@example.com"));
    expect((await verify(later)).map((result) => result.status.result)).toEqual(["pass"]);
  });

  it("leaves mail of a tenant without a key unsigned", async () => {
    const welcome = await welcomeOf("acme-reader@example.com", "acme");
    expect(welcome.headers.has("dkim-signature")).toBe(false);
    expect(welcome.raw.toString("latin1")).not.toMatch(/^DKIM-Signature:/im);
  });

  it("rotates: the new key waits for its record, signs after the switch; removal leaves mail unsigned", async () => {
    const [current] = await keyRows();
    const sameSelector = await generate(current?.selector ?? "");
    expect(sameSelector.status).toBe(400);
    expect(textOf(await sameSelector.text())).toContain(
      "Use a new selector: the current key already uses this one",
    );

    const rotated = await generate("herald-next");
    expect(rotated.headers.get("location")).toBe("/admin/tenants/main?dkim=pending#dkim");
    const html = await (await get("/admin/tenants/main")).text();
    const records = recordsOn(html);
    expect(records.map((record) => record.name)).toEqual([
      `${current?.selector}._domainkey.keydiscovery.com`,
      "herald-next._domainkey.keydiscovery.com",
    ]);
    // Until staff switch, the current key keeps signing.
    const before = await welcomeOf("before-switch@example.com");
    expect(before.headers.get("dkim-signature")).toContain(`s=${current?.selector}`);
    expect((await verify(before))[0]?.status.result).toBe("pass");

    const next = records[1];
    if (next) publish(next);
    const switched = await dkimForm({ intent: "dkim:activate" });
    expect(switched.headers.get("location")).toBe("/admin/tenants/main?dkim=activated#dkim");
    expect((await keyRows()).map((row) => [row.status, row.selector])).toEqual([
      ["active", "herald-next"],
    ]);
    const after = await welcomeOf("after-switch@example.com");
    expect(after.headers.get("dkim-signature")).toContain("s=herald-next");
    expect((await verify(after))[0]?.status.result).toBe("pass");

    const unconfirmed = await dkimForm({ intent: "dkim:remove" });
    expect(unconfirmed.status).toBe(400);
    expect(textOf(await unconfirmed.text())).toContain("Tick the box to confirm");
    expect(await keyRows()).toHaveLength(1);
    const removed = await dkimForm({ intent: "dkim:remove", confirm: "on" });
    expect(removed.headers.get("location")).toBe("/admin/tenants/main?dkim=removed#dkim");
    expect(await keyRows()).toEqual([]);
    const unsigned = await welcomeOf("unsigned@example.com");
    expect(unsigned.headers.has("dkim-signature")).toBe(false);
  });

  it("signs with an Ed25519 key (RFC 8463) when staff choose one", async () => {
    const response = await dkimForm(
      {
        intent: "dkim:generate",
        selector: "edkey",
        domain: "acme.example.com",
        algorithm: "ed25519",
      },
      "acme",
    );
    expect(response.headers.get("location")).toBe("/admin/tenants/acme?dkim=generated#dkim");
    const html = await (await get("/admin/tenants/acme")).text();
    const [record] = recordsOn(html);
    expect(record?.name).toBe("edkey._domainkey.acme.example.com");
    // The bare 32-byte public key: 44 base64 characters.
    expect(record?.value).toMatch(/^v=DKIM1; k=ed25519; p=[A-Za-z0-9+/]{43}=$/);
    if (record) publish(record);

    const welcome = await welcomeOf("ed-reader@example.com", "acme");
    const signature = welcome.headers.get("dkim-signature") ?? "";
    expect(signature).toContain("a=ed25519-sha256");
    expect(signature.replace(/\s/g, "")).toMatch(/h=[^;]*list-unsubscribe/i);
    const results = await verify(welcome);
    expect(results.map((result) => [result.status.result, result.signingDomain])).toEqual([
      ["pass", "acme.example.com"],
    ]);
    const tampered = Buffer.from(
      welcome.raw.toString("latin1").replace(/^Subject: .*$/m, "Subject: Changed"),
      "latin1",
    );
    expect((await dkimVerify(tampered, { resolver })).results[0]?.status.result).toBe("fail");
  });

  it("signs both ways (RFC 8463): an RSA and an Ed25519 signature, each verified, during a rotation too", async () => {
    const acme = (fields: Record<string, string>) => dkimForm(fields, "acme");
    const signatures = (mail: ReceivedMail) =>
      [...mail.raw.toString("latin1").matchAll(/^DKIM-Signature:((?:.*\r\n[ \t].*)*.*)/gim)].map(
        (match) => (match[1] ?? "").replace(/\s/g, ""),
      );
    const outcome = async (mail: ReceivedMail) =>
      (await verify(mail)).map((result) => `${result.selector}: ${result.status.result}`);

    // Beside the Ed25519 key, an RSA key waits for its record: the Ed25519 key signs alone.
    const added = await generate("rsakey", "acme.example.com", "rsa", "acme");
    expect(added.headers.get("location")).toBe("/admin/tenants/acme?dkim=second#dkim");
    const waiting = await (await get("/admin/tenants/acme?dkim=second")).text();
    expect(textOf(waiting)).toContain(
      "New DKIM key generated. Publish its TXT record, then add it",
    );
    expect(textOf(waiting)).toContain("Second key, RSA-2048 (waiting for its DNS record)");
    const records = recordsOn(waiting);
    expect(records.map((record) => record.name)).toEqual([
      "edkey._domainkey.acme.example.com",
      "rsakey._domainkey.acme.example.com",
    ]);
    const alone = await welcomeOf("alone@example.com", "acme");
    expect(signatures(alone)).toHaveLength(1);
    expect(await outcome(alone)).toEqual(["edkey: pass"]);

    // An algorithm that is no key type, or a pending key the tenant lacks: refused, nothing changes.
    expect((await acme({ intent: "dkim:activate", algorithm: "dsa" })).status).toBe(400);
    expect((await acme({ intent: "dkim:activate", algorithm: "ed25519" })).status).toBe(409);
    expect((await acme({ intent: "dkim:discard", algorithm: "ed25519" })).status).toBe(409);
    const rsaRecord = records[1];
    if (rsaRecord) publish(rsaRecord);
    const both = await acme({ intent: "dkim:activate", algorithm: "rsa" });
    expect(both.headers.get("location")).toBe("/admin/tenants/acme?dkim=both#dkim");
    const page = await (await get("/admin/tenants/acme?dkim=both")).text();
    expect(textOf(page)).toContain("Both DKIM keys now sign this tenant's mail");
    expect(textOf(page)).toContain("Current RSA-2048 key (signs this tenant's mail)");
    expect(textOf(page)).toContain("Current Ed25519 key (signs this tenant's mail)");

    // Every message carries both, the RSA one first, each with its own selector; both verify.
    const dual = await welcomeOf("dual@example.com", "acme");
    const [first, second] = signatures(dual);
    expect(first).toContain("a=rsa-sha256");
    expect(first).toContain("s=rsakey");
    expect(second).toContain("a=ed25519-sha256");
    expect(second).toContain("s=edkey");
    expect(await outcome(dual)).toEqual(["rsakey: pass", "edkey: pass"]);
    // A changed body fails both (mailauth: "neutral", body hash did not verify); a changed subject too.
    const raw = dual.raw.toString("latin1");
    const split = raw.indexOf("\r\n\r\n");
    const lastLine = raw.lastIndexOf("\r\n", raw.length - 3);
    expect(lastLine).toBeGreaterThan(split);
    const tamperedBody = `${raw.slice(0, lastLine)}\r\nX${raw.slice(lastLine + 2)}`;
    const body = await dkimVerify(Buffer.from(tamperedBody, "latin1"), { resolver });
    expect(body.results.map((result) => result.status.result)).toEqual(["neutral", "neutral"]);
    expect(body.results.map((result) => result.status.comment)).toEqual([
      "body hash did not verify",
      "body hash did not verify",
    ]);
    const tamperedSubject = raw.replace(/^Subject: .*$/m, "Subject: Changed");
    const subject = await dkimVerify(Buffer.from(tamperedSubject, "latin1"), { resolver });
    expect(subject.results.map((result) => result.status.result)).toEqual(["fail", "fail"]);

    // Rotating the Ed25519 key: the new one waits, both old keys keep signing; after the switch
    // the RSA key and the new Ed25519 key sign.
    const taken = await generate("rsakey", "acme.example.com", "ed25519", "acme");
    expect(taken.status).toBe(400);
    expect(textOf(await taken.text())).toContain(
      "Use a new selector: the current key already uses this one",
    );
    const rotated = await generate("edkey2", "acme.example.com", "ed25519", "acme");
    expect(rotated.headers.get("location")).toBe("/admin/tenants/acme?dkim=pending#dkim");
    const during = await welcomeOf("during@example.com", "acme");
    expect(await outcome(during)).toEqual(["rsakey: pass", "edkey: pass"]);
    const next = recordsOn(await (await get("/admin/tenants/acme")).text()).find(
      (record) => record.name === "edkey2._domainkey.acme.example.com",
    );
    expect(next?.value).toMatch(/^v=DKIM1; k=ed25519; p=/);
    if (next) publish(next);
    const switched = await acme({ intent: "dkim:activate", algorithm: "ed25519" });
    expect(switched.headers.get("location")).toBe("/admin/tenants/acme?dkim=both#dkim");
    const keys = await keyRows();
    expect(
      keys.filter((row) => row.tenant_id === "acme").map((row) => [row.status, row.selector]),
    ).toEqual([
      ["active", "rsakey"],
      ["active", "edkey2"],
    ]);
    const after = await welcomeOf("after-rotation@example.com", "acme");
    expect(await outcome(after)).toEqual(["rsakey: pass", "edkey2: pass"]);
  });

  it("removes one key of two (issue 36): the other signs alone; a bad or absent type changes nothing", async () => {
    const acme = (fields: Record<string, string>) => dkimForm(fields, "acme");
    const acmeKeys = async () =>
      (await keyRows())
        .filter((row) => row.tenant_id === "acme")
        .map((row) => [row.status, row.algorithm, row.selector]);
    // Two keys sign (the test above): one removal form each, no "remove both".
    const page = textOf(await (await get("/admin/tenants/acme")).text());
    expect(page).toContain("Remove the RSA key");
    expect(page).toContain("Remove the Ed25519 key");
    expect(page).toContain(
      "Remove the Ed25519 key: the RSA-2048 key signs this tenant's mail alone",
    );
    expect(page).not.toContain("Remove DKIM key");
    // A rotation of the Ed25519 key under way: removing the type removes its pending key too.
    expect((await generate("edkey3", "acme.example.com", "ed25519", "acme")).status).toBe(302);
    const keysBefore = await acmeKeys();
    const changesBefore = await changeCount();

    const refused: [Record<string, string>, number, string][] = [
      [{ algorithm: "dsa", confirm: "on" }, 400, "Key type must be RSA-2048 or Ed25519"],
      [{ algorithm: "", confirm: "on" }, 400, "Key type must be RSA-2048 or Ed25519"],
      [{ algorithm: "ed25519" }, 400, "Tick the box to confirm: the other key will sign alone"],
    ];
    for (const [fields, status, message] of refused) {
      const response = await acme({ intent: "dkim:remove", ...fields });
      expect(response.status, JSON.stringify(fields)).toBe(status);
      const text = textOf(await response.text());
      expect(text).toContain(message);
    }
    expect(await acmeKeys()).toEqual(keysBefore);
    expect(await changeCount()).toBe(changesBefore);

    const removed = await acme({ intent: "dkim:remove", algorithm: "ed25519", confirm: "on" });
    expect(removed.headers.get("location")).toBe("/admin/tenants/acme?dkim=removedOne#dkim");
    expect(await acmeKeys()).toEqual([["active", "rsa", "rsakey"]]);
    expect(await changeCount()).toBe(changesBefore + 1);
    const shown = textOf(await (await get("/admin/tenants/acme?dkim=removedOne")).text());
    expect(shown).toContain("DKIM key removed. The other key signs this tenant's mail alone.");
    expect(shown).toContain("Remove DKIM key");
    expect(shown).not.toContain("Remove the RSA key");

    // The next message carries the RSA signature only, and it verifies.
    const single = await welcomeOf("rsa-only@example.com", "acme");
    const signatures = single.raw.toString("latin1").match(/^DKIM-Signature:/gim) ?? [];
    expect(signatures).toHaveLength(1);
    expect(single.headers.get("dkim-signature")).toContain("a=rsa-sha256");
    expect(
      (await verify(single)).map((result) => `${result.selector}: ${result.status.result}`),
    ).toEqual(["rsakey: pass"]);

    // No Ed25519 key left to remove, and the RSA key signs alone: both refused, nothing changes.
    const gone = await acme({ intent: "dkim:remove", algorithm: "ed25519", confirm: "on" });
    expect(gone.status).toBe(409);
    expect(textOf(await gone.text())).toContain("This tenant has no key of this type signing");
    const alone = await acme({ intent: "dkim:remove", algorithm: "rsa", confirm: "on" });
    expect(alone.status).toBe(409);
    expect(textOf(await alone.text())).toContain("This key signs alone");
    expect(await acmeKeys()).toEqual([["active", "rsa", "rsakey"]]);
    expect(await changeCount()).toBe(changesBefore + 1);
  });
});
