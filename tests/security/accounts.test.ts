import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { Secret, TOTP } from "otpauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApiToken } from "../../server/auth/api-tokens";
import type { StaffUser } from "../../server/auth/permissions";
import { createSession } from "../../server/auth/sessions";
import {
  confirmEnrolment,
  setTwoFactorRequired,
  startEnrolment,
} from "../../server/auth/two-factor";
import { findUserByEmail } from "../../server/auth/users";
import { migrateToLatest } from "../../server/db/migrate";
import { crossTenant } from "../../server/db/tenant-guard";
import { seedTenants } from "../../server/tenants/seed";
import { callApi } from "../support/api";
import { createStaffUser, signIn, TEST_PASSWORD } from "../support/auth";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { textOf } from "../support/html";
import { type RunningServer, startServer } from "../support/server";
import { type SmtpSink, startSmtpSink } from "../support/smtp-sink";
import { insertSubscriber } from "../support/subscribers";
import { scaled } from "../support/timing";

/*
 * Issue 32, findings 1, 8, 9, 10, 13 and 16 (the challenge replay): staff accounts as an attacker
 * who has a password, a copied cookie, an old invitation or a token would use them. Real server,
 * real database, real SMTP sink. Decision 024.
 */

const SECRET = "accounts-probe-secret-0123456789abcdef";
const run = promisify(execFile);

describe.each(testDialects())("staff accounts under attack on %s", (dialect) => {
  let database: TestDatabase;
  let sink: SmtpSink;
  let server: RunningServer;
  let clients = 0;

  /** A new client address per call, unless a test names one. */
  const nextClient = () => {
    clients += 1;
    return `198.51.${Math.floor(clients / 250)}.${clients % 250}`;
  };
  const request = (
    path: string,
    options: { cookie?: string; form?: Record<string, string>; from?: string } = {},
  ) =>
    fetch(`${server.url}${path}`, {
      method: options.form ? "POST" : "GET",
      body: options.form ? new URLSearchParams(options.form) : undefined,
      headers: {
        "x-forwarded-for": options.from ?? nextClient(),
        origin: server.url,
        ...(options.cookie ? { cookie: options.cookie } : {}),
      },
      redirect: "manual",
    });
  const cookieOf = (response: Response, name: string) =>
    response.headers
      .getSetCookie()
      .find((cookie) => cookie.startsWith(`${name}=`) && !cookie.startsWith(`${name}=;`))
      ?.split(";")[0] ?? "";
  const codeFor = (secret: string, offset = 0) =>
    new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate({
      timestamp: Date.now() + offset * 30_000,
    });
  /** Turns two-factor sign-in on for `user` straight in the database (the code's step is spent). */
  async function enrolDirectly(user: StaffUser) {
    const { secret } = await startEnrolment(database.db, user, "Probe");
    const recovery = await confirmEnrolment(database.db, user.id, codeFor(secret));
    expect(recovery).toHaveLength(10);
    return { secret, recovery: recovery ?? [] };
  }
  /** The password step: answers the challenge cookie. */
  async function passwordStep(email: string, from?: string) {
    const response = await request("/admin/login", {
      form: { email, password: TEST_PASSWORD },
      from,
    });
    expect(response.headers.get("location")).toBe("/admin/login/two-factor");
    return cookieOf(response, "herald_2fa");
  }
  const codeStep = (challenge: string, code: string, from?: string) =>
    request("/admin/login/two-factor", { cookie: challenge, form: { code }, from });
  const canUseAdmin = async (cookie: string) =>
    (await request("/admin/dashboard", { cookie })).status === 200;
  const callFunction = (name: string, data: unknown, auth: { cookie?: string; token?: string }) =>
    callApi(server.url, `/api/functions/${name}`, { method: "POST", json: { data }, ...auth });
  const mailTo = (address: string, after: number) =>
    sink.waitFor((m) => m.to.includes(address) && sink.messages.indexOf(m) >= after);

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    await insertSubscriber(database.db, { email: "victim@example.com" });
    await createStaffUser(database.db, { email: "root@example.com", role: "super_admin" });
    sink = await startSmtpSink();
    server = await startServer({
      databaseUrl: database.url,
      env: { SMTP_URL: sink.url, SESSION_SECRET: SECRET },
    });
  });

  afterAll(async () => {
    await server?.stop();
    await sink?.stop();
    await database?.drop();
  });

  describe("finding 1: two-factor required at every door", () => {
    let held: { editor: string; admin: string };
    let enrolled = "";

    beforeAll(async () => {
      await createStaffUser(database.db, {
        email: "held-editor@example.com",
        products: { main: true },
      });
      await createStaffUser(database.db, { email: "held-admin@example.com", role: "super_admin" });
      const ready = await createStaffUser(database.db, {
        email: "ready@example.com",
        products: { main: true },
      });
      const { secret } = await enrolDirectly(ready);
      enrolled = cookieOf(
        await codeStep(await passwordStep("ready@example.com"), codeFor(secret, 1)),
        "herald_session",
      );
      await setTwoFactorRequired(database.db, true);
      // With the requirement on, the password alone still gives a session: enrolment-only.
      held = {
        editor: await signIn(server.url, "held-editor@example.com"),
        admin: await signIn(server.url, "held-admin@example.com"),
      };
    });

    afterAll(async () => {
      await setTwoFactorRequired(database.db, false);
    });

    const campaignsOfMain = async () =>
      (
        await crossTenant(database.db)
          .selectFrom("campaigns")
          .select("id")
          .where("tenant_id", "=", "main")
          .execute()
      ).length;

    it("an unenrolled staff member's cookie and session token open no function, tenant API or verify", async () => {
      const campaignsBefore = await campaignsOfMain();
      const ways = (cookie: string) => [
        { cookie },
        { token: cookie.split("=")[1] ?? "" },
        // a session token beside a valid-looking cookie is judged by the token alone
        { token: cookie.split("=")[1] ?? "", cookie },
      ];
      for (const auth of ways(held.editor)) {
        const read = await callFunction("getSubscriber", { email: "victim@example.com" }, auth);
        expect(read.status, read.text).toBe(401);
        expect(read.text).not.toContain("victim@example.com");
        const added = await callFunction("addSubscriber", { email: "planted@example.com" }, auth);
        expect(added.status, added.text).toBe(401);
        const sent = await callFunction(
          "createAndSendCampaign",
          { subject: "Phished", content: "<p>Phished</p>" },
          auth,
        );
        expect(sent.status, sent.text).toBe(401);
      }
      for (const auth of ways(held.admin)) {
        const changed = await callApi(server.url, "/api/tenants/main/branding", {
          method: "PATCH",
          json: { companyName: "Owned by a phisher" },
          ...auth,
        });
        expect(changed.status, changed.text).toBe(401);
      }
      for (const cookie of [held.editor, held.admin]) {
        const verify = await callApi(server.url, "/api/auth/verify", {
          token: cookie.split("=")[1] ?? "",
        });
        expect(verify.status, verify.text).toBe(401);
      }
      // Nothing was written, nothing sent.
      const planted = await crossTenant(database.db)
        .selectFrom("subscribers")
        .select("id")
        .where("email", "=", "planted@example.com")
        .execute();
      expect(planted).toHaveLength(0);
      expect(await campaignsOfMain()).toBe(campaignsBefore);
      const tenant = await callApi(server.url, "/api/tenants/main");
      expect(JSON.stringify(tenant.body)).not.toContain("Owned by a phisher");

      // Staff pages send them to enrolment, as before.
      const page = await request("/admin/subscribers", { cookie: held.editor });
      expect(page.headers.get("location")).toBe("/admin/account?required=1#two-factor");

      // Enrolled staff work as ever, by cookie and by session token.
      const byCookie = await callFunction(
        "getSubscriber",
        { email: "victim@example.com" },
        { cookie: enrolled },
      );
      expect(byCookie.status, byCookie.text).toBe(200);
      const verified = await callApi(server.url, "/api/auth/verify", {
        token: enrolled.split("=")[1] ?? "",
      });
      expect(verified.status).toBe(200);
    });

    it("an enrolment-only session cannot lift the requirement, but can enrol and then work", async () => {
      const lifted = await request("/admin/account", {
        cookie: held.admin,
        form: { intent: "require", required: "0" },
      });
      expect(lifted.status).toBe(403);
      const row = await crossTenant(database.db)
        .selectFrom("settings")
        .select("value")
        .where("key", "=", "require_two_factor")
        .executeTakeFirst();
      expect(row?.value).toBe("1");

      // The same session enrols (password and code), then opens the API.
      expect(
        (await request("/admin/account", { cookie: held.editor, form: { intent: "start" } }))
          .status,
      ).toBe(302);
      const html = await (await request("/admin/account", { cookie: held.editor })).text();
      const secret = html.match(/data-testid="totp-secret"[^>]*>([A-Z2-7]+)</)?.[1] ?? "";
      const on = await request("/admin/account", {
        cookie: held.editor,
        form: { intent: "confirm", code: codeFor(secret), password: TEST_PASSWORD },
      });
      expect(textOf(await on.text())).toContain("Two-factor sign-in is on.");
      const read = await callFunction(
        "getSubscriber",
        { email: "victim@example.com" },
        { cookie: held.editor },
      );
      expect(read.status, read.text).toBe(200);
    });
  });

  describe("finding 8: an invitation outlives no one", () => {
    it("a removed or demoted super admin's pending invitation makes nobody anything", async () => {
      const rootCookie = await signIn(server.url, "root@example.com");
      for (const fate of ["demoted", "removed"] as const) {
        const sender = await createStaffUser(database.db, {
          email: `sender-${fate}@example.com`,
          role: "super_admin",
        });
        const senderCookie = await signIn(server.url, sender.email);
        const invitee = `invitee-${fate}@example.com`;
        const before = sink.messages.length;
        const invited = await request("/admin/users", {
          cookie: senderCookie,
          form: { intent: "invite", email: invitee, role: "super_admin" },
        });
        expect(invited.status).toBe(200);
        const link =
          (await mailTo(invitee, before)).text.match(/\/admin\/accept-invitation\/[\w-]+/)?.[0] ??
          "";
        expect(link).not.toBe("");
        const change = await request("/admin/users", {
          cookie: rootCookie,
          form:
            fate === "demoted"
              ? { intent: "access", userId: sender.id, role: "editor" }
              : { intent: "remove", userId: sender.id },
        });
        expect(change.status).toBe(200);

        expect(textOf(await (await request(link)).text())).toContain(
          "This invitation is not valid any more",
        );
        const accepted = await request(link, {
          form: { password: "a brand new passphrase", confirmPassword: "a brand new passphrase" },
        });
        expect(accepted.status).toBe(400);
        expect(await findUserByEmail(database.db, invitee)).toBeUndefined();
      }
    });

    it("an invitation whose sender lost the role outside the users page opens nothing either", async () => {
      const sender = await createStaffUser(database.db, {
        email: "sender-cli@example.com",
        role: "super_admin",
      });
      const before = sink.messages.length;
      await request("/admin/users", {
        cookie: await signIn(server.url, sender.email),
        form: { intent: "invite", email: "invitee-cli@example.com", role: "super_admin" },
      });
      const link =
        (await mailTo("invitee-cli@example.com", before)).text.match(
          /\/admin\/accept-invitation\/[\w-]+/,
        )?.[0] ?? "";
      await crossTenant(database.db)
        .updateTable("users")
        .set({ role: "editor" })
        .where("id", "=", sender.id)
        .execute();
      const accepted = await request(link, {
        form: { password: "a brand new passphrase", confirmPassword: "a brand new passphrase" },
      });
      expect(accepted.status).toBe(400);
      expect(await findUserByEmail(database.db, "invitee-cli@example.com")).toBeUndefined();
    });
  });

  describe("finding 9: turning two-factor on, and clearing it for someone", () => {
    it("turning it on asks for the password and signs out the other sessions", async () => {
      await createStaffUser(database.db, { email: "switch@example.com", products: { main: true } });
      const here = await signIn(server.url, "switch@example.com");
      const there = await signIn(server.url, "switch@example.com");
      await request("/admin/account", { cookie: here, form: { intent: "start" } });
      const html = await (await request("/admin/account", { cookie: here })).text();
      const secret = html.match(/data-testid="totp-secret"[^>]*>([A-Z2-7]+)</)?.[1] ?? "";
      expect(html).toContain("Your password");

      const noPassword = await request("/admin/account", {
        cookie: here,
        form: { intent: "confirm", code: codeFor(secret) },
      });
      expect(noPassword.status).toBe(400);
      const wrongPassword = await request("/admin/account", {
        cookie: here,
        form: { intent: "confirm", code: codeFor(secret), password: "not my password" },
      });
      expect(wrongPassword.status).toBe(401);
      const user = await findUserByEmail(database.db, "switch@example.com");
      expect(user?.totp_enabled_at).toBeNull();
      expect(await canUseAdmin(there)).toBe(true);

      const on = await request("/admin/account", {
        cookie: here,
        form: { intent: "confirm", code: codeFor(secret), password: TEST_PASSWORD },
      });
      expect(textOf(await on.text())).toContain("Two-factor sign-in is on.");
      expect(await canUseAdmin(here)).toBe(true);
      expect(await canUseAdmin(there)).toBe(false);
    });

    it("a super admin clears a member's second factor on the users page", async () => {
      const lost = await createStaffUser(database.db, {
        email: "lost-phone@example.com",
        products: { main: true },
      });
      const { secret } = await enrolDirectly(lost);
      const session = cookieOf(
        await codeStep(await passwordStep(lost.email), codeFor(secret, 1)),
        "herald_session",
      );
      expect(await canUseAdmin(session)).toBe(true);

      const rootCookie = await signIn(server.url, "root@example.com");
      const page = await (await request("/admin/users", { cookie: rootCookie })).text();
      expect(page).toContain("Clear two-factor sign-in");
      const cleared = await request("/admin/users", {
        cookie: rootCookie,
        form: { intent: "reset-2fa", userId: lost.id },
      });
      expect(cleared.status).toBe(200);
      expect(textOf(await cleared.text())).toContain("Two-factor sign-in cleared.");
      expect((await findUserByEmail(database.db, lost.email))?.totp_enabled_at).toBeNull();
      expect(await canUseAdmin(session)).toBe(false);
      // The password alone signs them in again, to set it up anew.
      expect(await canUseAdmin(await signIn(server.url, lost.email))).toBe(true);
    });

    it(
      "`herald user reset-2fa --email E` clears a member's second factor",
      async () => {
        const lost = await createStaffUser(database.db, {
          email: "lost-again@example.com",
          products: { main: true },
        });
        await enrolDirectly(lost);
        const session = await createSession(database.db, lost.id);
        expect(await canUseAdmin(`herald_session=${session.token}`)).toBe(true);
        const { stdout } = await run(
          process.execPath,
          ["build/cli/herald.mjs", "user", "reset-2fa", "--email", lost.email],
          { env: { ...process.env, DATABASE_URL: database.url, LOG_LEVEL: "warn" } },
        );
        expect(stdout).toContain("Two-factor sign-in cleared for lost-again@example.com");
        expect((await findUserByEmail(database.db, lost.email))?.totp_enabled_at).toBeNull();
        expect(await canUseAdmin(`herald_session=${session.token}`)).toBe(false);
      },
      scaled(60_000),
    ); // a second process starts and migrates
  });

  describe("finding 10 and 16: the second step", () => {
    it("wrong codes from elsewhere never lock the owner out; a challenge dies after five", async () => {
      const owner = await createStaffUser(database.db, {
        email: "locked@example.com",
        products: { main: true },
      });
      const { secret } = await enrolDirectly(owner);
      const attacker = "203.0.113.99";
      for (let round = 0; round < 2; round++) {
        const challenge = await passwordStep(owner.email, attacker);
        for (let attempt = 0; attempt < 5; attempt++) {
          const wrong = await codeStep(challenge, String(100000 + round * 10 + attempt), attacker);
          expect(wrong.status).toBe(401);
        }
        // Five wrong codes end the challenge: the password step again, even with the right code.
        const dead = await codeStep(challenge, codeFor(secret, 1), attacker);
        expect(dead.status).toBe(302);
        expect(dead.headers.get("location")).toBe("/admin/login");
        expect(cookieOf(dead, "herald_session")).toBe("");
      }
      // Ten wrong codes from one address for one account: that address waits.
      const limited = await codeStep(await passwordStep(owner.email, attacker), "123456", attacker);
      expect(limited.status).toBe(429);

      const home = "192.0.2.44";
      const signedIn = await codeStep(
        await passwordStep(owner.email, home),
        codeFor(secret, 1),
        home,
      );
      expect(signedIn.status).toBe(302);
      expect(await canUseAdmin(cookieOf(signedIn, "herald_session"))).toBe(true);
    });

    it("a challenge that started a session cannot start another", async () => {
      const user = await createStaffUser(database.db, {
        email: "replayed@example.com",
        products: { main: true },
      });
      const { secret, recovery } = await enrolDirectly(user);
      const challenge = await passwordStep(user.email);
      const first = await codeStep(challenge, codeFor(secret, 1));
      expect(first.status).toBe(302);
      expect(cookieOf(first, "herald_session")).not.toBe("");
      // A copy of the challenge cookie, with a code the copier has (a recovery code).
      const replay = await codeStep(challenge, recovery[0] ?? "");
      expect(replay.status).toBe(302);
      expect(replay.headers.get("location")).toBe("/admin/login");
      expect(cookieOf(replay, "herald_session")).toBe("");
      // The recovery code was not spent by the refused replay... nor by anyone: still 10 left.
      const row = await findUserByEmail(database.db, user.email);
      expect(JSON.parse(row?.recovery_codes ?? "[]")).toHaveLength(10);
    });
  });

  describe("finding 13: API tokens after a password reset, and their longest lifetime", () => {
    const works = async (token: string) =>
      (await callFunction("getAllGroups", {}, { token })).status === 200;

    it("a password reset, by the owner's link or by a super admin, revokes the account's API tokens", async () => {
      const owner = await createStaffUser(database.db, {
        email: "scripted@example.com",
        role: "super_admin",
      });
      const first = await createApiToken(database.db, owner, "nightly", { lifetimeDays: 30 });
      expect(await works(first.token)).toBe(true);
      const before = sink.messages.length;
      await request("/admin/forgot-password", { form: { email: owner.email } });
      const link =
        (await mailTo(owner.email, before)).text.match(/\/admin\/reset-password\/[\w-]+/)?.[0] ??
        "";
      const reset = await request(link, {
        form: {
          password: "the owner's new passphrase",
          confirmPassword: "the owner's new passphrase",
        },
      });
      expect(reset.status).toBe(302);
      expect(await works(first.token)).toBe(false);

      const second = await createApiToken(database.db, owner, "hourly", { lifetimeDays: 30 });
      expect(await works(second.token)).toBe(true);
      const byAdmin = await request("/admin/users", {
        cookie: await signIn(server.url, "root@example.com"),
        form: { intent: "password", userId: owner.id, password: "a super admin's passphrase" },
      });
      expect(byAdmin.status).toBe(200);
      expect(await works(second.token)).toBe(false);
    });

    it("a super admin sets the longest lifetime: tokens that never expire stop, longer ones cannot be made", async () => {
      const root = await findUserByEmail(database.db, "root@example.com");
      const rootUser = {
        id: root?.id ?? "",
        email: "root@example.com",
        role: "super_admin",
        products: {},
        isSuperAdmin: true,
        twoFactor: false,
      };
      const forever = await createApiToken(database.db, rootUser, "forever", { lifetimeDays: 0 });
      const month = await createApiToken(database.db, rootUser, "month", { lifetimeDays: 30 });
      expect(await works(forever.token)).toBe(true);
      const rootCookie = await signIn(server.url, "root@example.com");
      const account = await (await request("/admin/account", { cookie: rootCookie })).text();
      expect(account).toContain("Longest lifetime of API tokens");
      try {
        const set = await request("/admin/account", {
          cookie: rootCookie,
          form: { intent: "token-lifetime", maxDays: "30" },
        });
        expect(set.status).toBe(200);
        expect(await works(forever.token)).toBe(false);
        expect(await works(month.token)).toBe(true);

        const page = await (await request("/admin/api-tokens", { cookie: rootCookie })).text();
        const offered = [...page.matchAll(/<option value="(\d+)"/g)].map((match) => match[1]);
        expect(offered).toEqual(["30"]);
        for (const lifetimeDays of ["0", "365"]) {
          const made = await request("/admin/api-tokens", {
            cookie: rootCookie,
            form: {
              intent: "create",
              name: `too long ${lifetimeDays}`,
              scopes: "read",
              lifetimeDays,
            },
          });
          expect(made.status).toBe(400);
        }
        const ok = await request("/admin/api-tokens", {
          cookie: rootCookie,
          form: { intent: "create", name: "within", scopes: "read", lifetimeDays: "30" },
        });
        expect(ok.status).toBe(200);
      } finally {
        await request("/admin/account", {
          cookie: rootCookie,
          form: { intent: "token-lifetime", maxDays: "0" },
        });
      }
    });
  });
});
