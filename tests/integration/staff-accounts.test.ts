import { Secret, TOTP } from "otpauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { setTwoFactorRequired } from "../../server/auth/two-factor";
import { migrateToLatest } from "../../server/db/migrate";
import { crossTenant } from "../../server/db/tenant-guard";
import { seedTenants } from "../../server/tenants/seed";
import { createStaffUser, signIn, TEST_PASSWORD } from "../support/auth";
import { createTestDatabase, type TestDatabase, testDialects } from "../support/database";
import { textOf } from "../support/html";
import { type RunningServer, startServer } from "../support/server";
import { type ReceivedMail, type SmtpSink, startSmtpSink } from "../support/smtp-sink";
import { scaled } from "../support/timing";

/*
 * Issue 14, part 4: "Forgot password?", invitations by email, TOTP two-factor sign-in with
 * recovery codes, and the super admins' setting that requires it — through the real pages, with
 * the links read from the mail a real SMTP server received.
 */

const NEW_PASSWORD = "a brand new passphrase 42";

describe.each(testDialects())("staff accounts on %s", (dialect) => {
  let database: TestDatabase;
  let sink: SmtpSink;
  let server: RunningServer;
  let rootCookie = "";
  let clients = 0;

  beforeAll(async () => {
    database = await createTestDatabase(dialect);
    await migrateToLatest(database.db);
    await seedTenants(database.db);
    await createStaffUser(database.db, { email: "root@example.com", role: "super_admin" });
    for (const email of ["forgetful@example.com", "careful@example.com", "guesser@example.com"]) {
      await createStaffUser(database.db, { email, products: { main: true } });
    }
    sink = await startSmtpSink();
    server = await startServer({ databaseUrl: database.url, env: { SMTP_URL: sink.url } });
    rootCookie = await signIn(server.url, "root@example.com");
  });

  afterAll(async () => {
    await server?.stop();
    await sink?.stop();
    await database?.drop();
  });

  const request = (
    path: string,
    options: { form?: Record<string, string>; cookie?: string } = {},
  ) => {
    clients += 1;
    return fetch(`${server.url}${path}`, {
      method: options.form ? "POST" : "GET",
      body: options.form ? new URLSearchParams(options.form) : undefined,
      headers: {
        cookie: options.cookie ?? "",
        origin: server.url,
        "x-forwarded-for": `198.51.100.${clients % 250}`,
      },
      redirect: "manual",
    });
  };
  const page = async (path: string, cookie = "") => {
    const response = await request(path, { cookie });
    return { status: response.status, text: textOf(await response.text()), response };
  };
  const cookieOf = (response: Response, name: string) =>
    response.headers
      .getSetCookie()
      .find((cookie) => cookie.startsWith(`${name}=`))
      ?.split(";")[0] ?? "";
  const mailTo = (email: string, after: number) =>
    sink.waitFor((mail) => mail.to.includes(email) && sink.messages.indexOf(mail) >= after);
  function linkIn(mail: ReceivedMail, path: string): string {
    const found = mail.text.match(new RegExp(`https?://[^\\s\\])]+(${path}[^\\s\\])?]+)`))?.[1];
    if (!found) throw new Error(`no ${path} link in:\n${mail.text}`);
    return found;
  }
  const canUseAdmin = async (cookie: string) =>
    (await request("/admin/dashboard", { cookie })).status === 200 ||
    (await request("/admin/cms", { cookie })).status === 200;

  describe("Forgot password?", () => {
    it("mails a one-hour, single-use link; using it sets the password and ends every session", async () => {
      const login = await page("/admin/login");
      expect(login.text).toContain("Forgot password?");
      const oldSession = await signIn(server.url, "forgetful@example.com");
      expect(await canUseAdmin(oldSession)).toBe(true);

      const before = sink.messages.length;
      const answers = [];
      for (const email of ["nobody@example.com", "Forgetful@example.com"]) {
        const response = await request("/admin/forgot-password", { form: { email } });
        answers.push([response.status, response.headers.get("location")]);
      }
      // The same answer whether or not the address has an account.
      expect(answers).toEqual([
        [302, "/admin/forgot-password?sent=1"],
        [302, "/admin/forgot-password?sent=1"],
      ]);
      expect((await page("/admin/forgot-password?sent=1")).text).toContain(
        "If an account exists for that address, we have sent it a link",
      );
      const mail = await mailTo("forgetful@example.com", before);
      expect(mail.subject).toBe("Reset your KeyDiscovery staff password");
      const link = linkIn(mail, "/admin/reset-password/");
      expect(sink.messages.some((m) => m.to.includes("nobody@example.com"))).toBe(false);

      const form = await page(link);
      expect(form.status).toBe(200);
      expect(form.text).toContain("forgetful@example.com");
      const weak = await request(link, {
        form: { password: "password123", confirmPassword: "password123" },
      });
      expect(weak.status).toBe(400);
      expect(textOf(await weak.text())).toMatch(/common/i);
      const mismatch = await request(link, {
        form: { password: NEW_PASSWORD, confirmPassword: "something else entirely" },
      });
      expect(textOf(await mismatch.text())).toContain("The passwords do not match.");

      const reset = await request(link, {
        form: { password: NEW_PASSWORD, confirmPassword: NEW_PASSWORD },
      });
      expect(reset.status).toBe(302);
      const fresh = cookieOf(reset, "herald_session");
      expect(await canUseAdmin(fresh)).toBe(true);
      // Every earlier session is over; the old password no longer works, the new one does.
      expect(await canUseAdmin(oldSession)).toBe(false);
      await expect(signIn(server.url, "forgetful@example.com")).rejects.toThrow();
      await signIn(server.url, "forgetful@example.com", NEW_PASSWORD);

      const reused = await page(link);
      expect(reused.text).toContain("This link is not valid any more");
      const posted = await request(link, {
        form: { password: "another long passphrase", confirmPassword: "another long passphrase" },
      });
      expect(posted.status).toBe(400);
    });

    it("refuses an expired or forged link", async () => {
      const before = sink.messages.length;
      await request("/admin/forgot-password", { form: { email: "careful@example.com" } });
      const first = linkIn(await mailTo("careful@example.com", before), "/admin/reset-password/");
      // Asking again sends a new link; the earlier one stops working.
      const again = sink.messages.length;
      await request("/admin/forgot-password", { form: { email: "careful@example.com" } });
      const link = linkIn(await mailTo("careful@example.com", again), "/admin/reset-password/");
      expect(link).not.toBe(first);
      expect((await page(first)).text).toContain("This link is not valid any more");
      expect((await page(link)).status).toBe(200);
      await crossTenant(database.db)
        .updateTable("staff_tokens")
        .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
        .where("email", "=", "careful@example.com")
        .execute();
      for (const path of [link, `${link.slice(0, -3)}abc`, "/admin/reset-password/nothing"]) {
        expect((await page(path)).text).toContain("This link is not valid any more");
        const posted = await request(path, {
          form: { password: NEW_PASSWORD, confirmPassword: NEW_PASSWORD },
        });
        expect(posted.status).toBe(400);
      }
      await signIn(server.url, "careful@example.com");
    });
  });

  describe("invitations", () => {
    const invite = (email: string, extra: Record<string, string> = {}) =>
      request("/admin/users", {
        cookie: rootCookie,
        form: { intent: "invite", email, role: "editor", products: "keydiscovery", ...extra },
      });

    it("a super admin invites by email; the invitee chooses a password and is signed in", async () => {
      const before = sink.messages.length;
      const sent = await invite("newcomer@example.com");
      expect(sent.status).toBe(200);
      expect(textOf(await sent.text())).toContain("Invitation sent to newcomer@example.com.");
      const users = await page("/admin/users", rootCookie);
      expect(users.text).toContain("Waiting invitations");
      expect(users.text).toContain("newcomer@example.com");

      const mail = await mailTo("newcomer@example.com", before);
      expect(mail.text).toContain("root@example.com invited you");
      const link = linkIn(mail, "/admin/accept-invitation/");
      const form = await page(link);
      expect(form.text).toContain("invited newcomer@example.com as an editor");
      expect(form.text).toContain("Your name");
      const accepted = await request(link, {
        form: {
          displayName: "  Nina Newcomer ",
          password: NEW_PASSWORD,
          confirmPassword: NEW_PASSWORD,
        },
      });
      expect(accepted.status).toBe(302);
      expect(accepted.headers.get("location")).toBe("/admin/cms");
      const user = await crossTenant(database.db)
        .selectFrom("users")
        .select(["role", "products", "display_name"])
        .where("email", "=", "newcomer@example.com")
        .executeTakeFirstOrThrow();
      expect(user).toEqual({
        role: "editor",
        products: '{"keydiscovery":true}',
        display_name: "Nina Newcomer",
      });
      const cookie = cookieOf(accepted, "herald_session");
      expect((await request("/admin/cms?subdomain=keydiscovery", { cookie })).status).toBe(200);
      // Used once; gone from the waiting list.
      expect((await page(link)).text).toContain("This invitation is not valid any more");
      expect((await page("/admin/users", rootCookie)).text).not.toContain("Waiting invitations");
      // Staff may not invite; an existing account is not invited again.
      const editor = await signIn(server.url, "careful@example.com");
      const byEditor = await request("/admin/users", {
        cookie: editor,
        form: { intent: "invite", email: "x@example.com", role: "super_admin" },
      });
      expect(byEditor.status).toBe(403);
      const twice = await invite("newcomer@example.com");
      expect(textOf(await twice.text())).toContain("A user with this email already exists.");
    });

    it("withdrawing an invitation, or sending it again, kills the old link", async () => {
      let before = sink.messages.length;
      await invite("withdrawn@example.com");
      const withdrawnLink = linkIn(
        await mailTo("withdrawn@example.com", before),
        "/admin/accept-invitation/",
      );
      before = sink.messages.length;
      await invite("resent@example.com");
      const firstLink = linkIn(
        await mailTo("resent@example.com", before),
        "/admin/accept-invitation/",
      );
      const rows = await crossTenant(database.db)
        .selectFrom("staff_tokens")
        .select(["id", "email"])
        .where("purpose", "=", "invite")
        .where("used_at", "is", null)
        .where("revoked_at", "is", null)
        .execute();
      const idOf = (email: string) => rows.find((row) => row.email === email)?.id ?? "";

      const withdrawn = await request("/admin/users", {
        cookie: rootCookie,
        form: { intent: "revoke-invitation", invitationId: idOf("withdrawn@example.com") },
      });
      expect(textOf(await withdrawn.text())).toContain("Invitation withdrawn.");
      expect((await page(withdrawnLink)).text).toContain("This invitation is not valid any more");

      before = sink.messages.length;
      await request("/admin/users", {
        cookie: rootCookie,
        form: { intent: "resend-invitation", invitationId: idOf("resent@example.com") },
      });
      const secondLink = linkIn(
        await mailTo("resent@example.com", before),
        "/admin/accept-invitation/",
      );
      expect(secondLink).not.toBe(firstLink);
      expect((await page(firstLink)).text).toContain("This invitation is not valid any more");
      expect((await page(secondLink)).status).toBe(200);
      // Inviting the same address again replaces the invitation rather than adding one.
      before = sink.messages.length;
      await invite("resent@example.com");
      const thirdLink = linkIn(
        await mailTo("resent@example.com", before),
        "/admin/accept-invitation/",
      );
      expect((await page(secondLink)).text).toContain("This invitation is not valid any more");
      const waiting = (await page("/admin/users", rootCookie)).text;
      expect(waiting.split("resent@example.com").length - 1).toBe(1);

      await crossTenant(database.db)
        .updateTable("staff_tokens")
        .set({ expires_at: new Date(Date.now() - 1000).toISOString() })
        .where("email", "=", "resent@example.com")
        .execute();
      const expired = await request(thirdLink, {
        form: { password: NEW_PASSWORD, confirmPassword: NEW_PASSWORD },
      });
      expect(expired.status).toBe(400);
    });
  });

  describe("two-factor sign-in", () => {
    /** Turns 2FA on for the account behind `cookie`; answers the secret and recovery codes. */
    async function enrol(cookie: string, password = TEST_PASSWORD) {
      const started = await request("/admin/account", { cookie, form: { intent: "start" } });
      expect(started.status).toBe(302);
      const html = await (await request("/admin/account", { cookie })).text();
      expect(html).toContain("<svg");
      const secret = html.match(/data-testid="totp-secret"[^>]*>([A-Z2-7]+)</)?.[1] ?? "";
      expect(secret).toMatch(/^[A-Z2-7]{32}$/);
      const wrong = await request("/admin/account", {
        cookie,
        form: { intent: "confirm", code: "000000", password },
      });
      expect(textOf(await wrong.text())).toContain("That code is not right.");
      const confirmed = await request("/admin/account", {
        cookie,
        form: { intent: "confirm", code: codeFor(secret), password },
      });
      const body = await confirmed.text();
      const text = textOf(body);
      expect(text).toContain("Two-factor sign-in is on.");
      // 20 characters of Crockford's base32 in groups of five (server/auth/two-factor.ts)
      const codes = [
        ...body.matchAll(/<li>((?:[0-9a-hjkmnp-tv-z]{5}-){3}[0-9a-hjkmnp-tv-z]{5})<\/li>/g),
      ];
      return { secret, recovery: codes.map((match) => match[1] as string), text };
    }
    const codeFor = (secret: string, offset = 0) =>
      new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30 }).generate({
        timestamp: Date.now() + offset * 30_000,
      });
    /** The password step: answers the challenge cookie (no session yet). */
    async function passwordStep(email: string, password = TEST_PASSWORD) {
      const response = await request("/admin/login", { form: { email, password } });
      expect(response.status).toBe(302);
      expect(response.headers.get("location")).toBe("/admin/login/two-factor");
      expect(cookieOf(response, "herald_session")).toBe("");
      return cookieOf(response, "herald_2fa");
    }
    const codeStep = (challenge: string, code: string) =>
      request("/admin/login/two-factor", { cookie: challenge, form: { code } });

    it("enrols with a QR code and ten recovery codes; sign-in then needs a code, once each", async () => {
      const cookie = await signIn(server.url, "careful@example.com");
      const { secret, recovery } = await enrol(cookie);
      expect(recovery).toHaveLength(10);

      const challenge = await passwordStep("careful@example.com");
      // The challenge opens nothing by itself.
      expect(await canUseAdmin(challenge)).toBe(false);
      expect((await page("/admin/login/two-factor")).response.headers.get("location")).toBe(
        "/admin/login",
      );
      const code = codeFor(secret, 1);
      // (the code that confirmed enrolment is spent: the next step's code, valid a step early)
      const signedIn = await codeStep(challenge, code);
      expect(signedIn.status).toBe(302);
      expect(await canUseAdmin(cookieOf(signedIn, "herald_session"))).toBe(true);

      // The same code again (a replay, or a shoulder-surfer): refused.
      const replay = await codeStep(await passwordStep("careful@example.com"), code);
      expect(replay.status).toBe(401);

      // A recovery code works once.
      const [first] = recovery;
      const byRecovery = await codeStep(await passwordStep("careful@example.com"), first ?? "");
      expect(byRecovery.status).toBe(302);
      const again = await codeStep(await passwordStep("careful@example.com"), first ?? "");
      expect(again.status).toBe(401);
      expect((await page("/admin/account", cookieOf(byRecovery, "herald_session"))).text).toContain(
        "9 unused recovery codes left",
      );
    });

    it("throttles guessing: five wrong codes end the challenge, even for the right one", async () => {
      const cookie = await signIn(server.url, "guesser@example.com");
      const { secret } = await enrol(cookie);
      const challenge = await passwordStep("guesser@example.com");
      for (let attempt = 0; attempt < 5; attempt++) {
        expect((await codeStep(challenge, String(100000 + attempt))).status).toBe(401);
      }
      // Back to the password step (issue 32, finding 10: per challenge, not per account).
      const dead = await codeStep(challenge, codeFor(secret, 1));
      expect(dead.status).toBe(302);
      expect(dead.headers.get("location")).toBe("/admin/login");
      expect(cookieOf(dead, "herald_session")).toBe("");
    });

    it(
      "turning it off needs the password or a code",
      async () => {
        const cookie = await signIn(server.url, "forgetful@example.com", NEW_PASSWORD);
        const { secret, recovery } = await enrol(cookie, NEW_PASSWORD);
        const signedIn = await codeStep(
          await passwordStep("forgetful@example.com", NEW_PASSWORD),
          codeFor(secret, 1),
        );
        const session = cookieOf(signedIn, "herald_session");
        const wrong = await request("/admin/account", {
          cookie: session,
          form: { intent: "disable", proof: "not my password" },
        });
        expect(wrong.status).toBe(401);
        expect(textOf(await wrong.text())).toContain("neither your password nor a valid code");
        // A recovery code (or a code from the app) will do instead of the password.
        const byCode = await request("/admin/account", {
          cookie: session,
          form: { intent: "disable", proof: recovery[0] ?? "" },
        });
        expect(textOf(await byCode.text())).toContain("Two-factor sign-in is off.");
        await signIn(server.url, "forgetful@example.com", NEW_PASSWORD);

        const again = await enrol(session, NEW_PASSWORD);
        expect(again.recovery).toHaveLength(10);
        const byPassword = await request("/admin/account", {
          cookie: session,
          form: { intent: "disable", proof: NEW_PASSWORD },
        });
        expect(textOf(await byPassword.text())).toContain("Two-factor sign-in is off.");
        // Guessing is limited: after five wrong tries even the password waits.
        await enrol(session, NEW_PASSWORD);
        for (let attempt = 0; attempt < 5; attempt++) {
          const guess = await request("/admin/account", {
            cookie: session,
            form: { intent: "disable", proof: `guess ${attempt}` },
          });
          expect(guess.status).toBe(401);
        }
        const limited = await request("/admin/account", {
          cookie: session,
          form: { intent: "disable", proof: NEW_PASSWORD },
        });
        expect(limited.status).toBe(429);
      },
      scaled(60_000),
    ); // three enrolments and a dozen password checks

    it("a super admin can require it: staff without it set it up before anything else", async () => {
      await createStaffUser(database.db, { email: "late@example.com", products: { main: true } });
      const late = await signIn(server.url, "late@example.com");
      expect(await canUseAdmin(late)).toBe(true);
      // Only super admins may change the rule.
      const refused = await request("/admin/account", {
        cookie: late,
        form: { intent: "require", required: "1" },
      });
      expect(refused.status).toBe(403);
      const required = await request("/admin/account", {
        cookie: rootCookie,
        form: { intent: "require", required: "1" },
      });
      expect(textOf(await required.text())).toContain("Every staff member now sets up two-factor");
      try {
        const sent = await request("/admin/cms", { cookie: late });
        expect(sent.status).toBe(302);
        expect(sent.headers.get("location")).toBe("/admin/account?required=1#two-factor");
        const account = await page("/admin/account?required=1", late);
        expect(account.status, account.response.headers.get("location") ?? "").toBe(200);
        expect(account.text).toContain("Two-factor sign-in is required for all staff.");
        await enrol(late);
        expect(await canUseAdmin(late)).toBe(true);
        // While it is required, nobody turns it off.
        const off = await request("/admin/account", {
          cookie: late,
          form: { intent: "disable", proof: TEST_PASSWORD },
        });
        expect(textOf(await off.text())).toContain("cannot be turned off");
      } finally {
        // Not through the page: root has no second factor, so its session is enrolment-only now.
        await setTwoFactorRequired(database.db, false);
      }
    });
  });
});
