import { describe, expect, it } from "vitest";
import { arfMessage, dsnMessage } from "../../tests/support/reports";
import { feedbackFrom } from "../campaigns/bounce-listener";
import { verpAddress, verpToken, withBounceAddress } from "../campaigns/bounces";
import { signDeliveryToken, verifyDeliveryToken } from "../campaigns/tracking-links";
import { parseBounceReport, parseFieldBlocks } from "./bounce-reports";
import { isHardBounce } from "./transport";

const SECRET = "b".repeat(40);
const DOMAIN = "bounces.example.com";
const verify = (token: string | null) => (token ? verifyDeliveryToken(SECRET, token) : null);

describe("delivery tokens and VERP addresses", () => {
  it("sign a delivery in a local part well under 64 characters, in any case", () => {
    const address = verpAddress(SECRET, DOMAIN, 123_456_789_012);
    const local = address.slice(0, address.indexOf("@"));
    expect(local.length).toBeLessThanOrEqual(64);
    expect(local).toMatch(/^bounces\+123456789012\.[0-9a-f]{24}$/);
    const token = verpToken(address.toUpperCase(), DOMAIN);
    expect(verify(token)).toBe(123_456_789_012);
  });

  it("refuse other domains, other secrets and altered tokens", () => {
    const token = signDeliveryToken(SECRET, 42);
    expect(verpToken(`bounces+${token}@elsewhere.example`, DOMAIN)).toBeNull();
    expect(verpToken(`someone@${DOMAIN}`, DOMAIN)).toBeNull();
    expect(verifyDeliveryToken("c".repeat(40), token)).toBeNull();
    expect(verify(token.replace(/^42\./, "43."))).toBeNull();
    expect(verify(`${token.slice(0, -1)}${token.endsWith("0") ? "1" : "0"}`)).toBeNull();
    expect(verify("42.short")).toBeNull();
  });

  it("put the VERP sender and the signed header on a message", () => {
    const message = withBounceAddress(
      { from: { name: "A", email: "a@example.com" }, to: "r@example.org", subject: "s" } as never,
      { secret: SECRET, bounceDomain: DOMAIN, deliveryId: 7 },
    ) as { envelopeFrom: string; headers: Record<string, string> };
    expect(message.envelopeFrom).toBe(`bounces+${signDeliveryToken(SECRET, 7)}@${DOMAIN}`);
    expect(message.headers["X-Herald-Delivery"]).toBe(signDeliveryToken(SECRET, 7));
  });
});

describe("SMTP answers at send time", () => {
  it("count a permanent refusal of the recipient as a hard bounce, not policy or 4xx", () => {
    expect(isHardBounce({ responseCode: 550, response: "550 No such user", command: "RCPT TO" }));
    expect(isHardBounce({ responseCode: 554, response: "554 5.1.1 unknown", command: "DATA" }));
    expect(
      isHardBounce({
        responseCode: 550,
        response: "550 5.7.1 Relaying denied",
        command: "RCPT TO",
      }),
    ).toBe(false);
    expect(isHardBounce({ responseCode: 552, response: "552 too big", command: "DATA" })).toBe(
      false,
    );
    expect(
      isHardBounce({ responseCode: 451, response: "451 4.1.1 later", command: "RCPT TO" }),
    ).toBe(false);
  });
});

describe("bounce reports", () => {
  const token = signDeliveryToken(SECRET, 42);
  const to = `bounces+${token}@${DOMAIN}`;

  it("read header blocks with folded lines", () => {
    expect(parseFieldBlocks("A: 1\r\nB: two\r\n  lines\r\n\r\nC: 3\r\n")).toEqual([
      new Map([
        ["a", "1"],
        ["b", "two lines"],
      ]),
      new Map([["c", "3"]]),
    ]);
  });

  it("recognise a hard bounce (Action: failed, Status 5.x.x) in an RFC 3464 DSN", async () => {
    const report = await parseBounceReport(
      dsnMessage({
        to,
        finalRecipient: "gone@example.org",
        originalHeaders: ["Subject: Issue 1", `X-Herald-Delivery: ${token}`],
      }),
    );
    expect(report).toMatchObject({
      type: "dsn",
      hardBounce: { finalRecipient: "gone@example.org", action: "failed", status: "5.1.1" },
      headerTokens: [token],
    });
    if (report.type !== "dsn") throw new Error("not a DSN");
    expect(report.hardBounce?.diagnostic).toMatch(/550 5\.1\.1 .*User unknown in virtual mailbox/);
    expect(feedbackFrom(report, token, verify, DOMAIN)).toMatchObject({
      ok: true,
      deliveryId: 42,
      kind: "bounce",
      detail: expect.stringMatching(/^DSN 5\.1\.1: smtp; 550/),
    });
  });

  it("ignore a delayed (4.x.x) DSN and one with a forged token", async () => {
    const delayed = await parseBounceReport(
      dsnMessage({ to, finalRecipient: "slow@example.org", action: "delayed", status: "4.4.7" }),
    );
    expect(delayed).toMatchObject({ type: "dsn", hardBounce: null });
    expect(feedbackFrom(delayed, token, verify, DOMAIN)).toMatchObject({
      ok: false,
      level: "info",
    });
    const failed = await parseBounceReport(dsnMessage({ to, finalRecipient: "gone@example.org" }));
    expect(feedbackFrom(failed, "42.000000000000000000000000", verify, DOMAIN)).toMatchObject({
      ok: false,
      level: "warn",
      reason: "bad delivery token",
    });
    // A DSN counts for the delivery its VERP recipient names only, not for a header it quotes.
    const quoting = await parseBounceReport(
      dsnMessage({
        to,
        finalRecipient: "gone@example.org",
        originalHeaders: [`X-Herald-Delivery: ${token}`],
      }),
    );
    expect(feedbackFrom(quoting, null, verify, DOMAIN)).toMatchObject({ ok: false });
  });

  it("recognise an ARF abuse report, by the recipient, the original's header or its Original-Mail-From", async () => {
    const report = await parseBounceReport(
      arfMessage({
        to: `bounces+unknown@${DOMAIN}`,
        originalRcptTo: "reader@example.org",
        originalHeaders: ["Subject: Issue 1", `X-Herald-Delivery: ${token}`],
      }),
    );
    expect(report).toMatchObject({
      type: "arf",
      feedbackType: "abuse",
      complaint: true,
      originalRcptTo: "reader@example.org",
      userAgent: "SomeGenerator/1.0",
      // the token-like line in the original's body is not a header
      headerTokens: [token],
    });
    expect(feedbackFrom(report, "unknown", verify, DOMAIN)).toMatchObject({
      ok: true,
      deliveryId: 42,
      kind: "complaint",
    });
    const byMailFrom = await parseBounceReport(
      arfMessage({ to: "fbl@example.com", originalMailFrom: to, originalRcptTo: "r@example.org" }),
    );
    expect(feedbackFrom(byMailFrom, null, verify, DOMAIN)).toMatchObject({
      ok: true,
      deliveryId: 42,
    });
    const notSpam = await parseBounceReport(
      arfMessage({ to, feedbackType: "not-spam", originalRcptTo: "r@example.org" }),
    );
    expect(notSpam).toMatchObject({ type: "arf", complaint: false });
    expect(feedbackFrom(notSpam, token, verify, DOMAIN)).toMatchObject({
      ok: false,
      level: "info",
    });
  });

  it("call anything else unrecognised", async () => {
    const plain = await parseBounceReport(
      "From: a@example.com\r\nTo: b@example.com\r\nSubject: hi\r\n\r\nJust a message.\r\n",
    );
    expect(plain).toMatchObject({ type: "unrecognised", reason: "not a multipart/report" });
    expect(feedbackFrom(plain, token, verify, DOMAIN)).toMatchObject({ ok: false, level: "warn" });
    expect(await parseBounceReport("\u0000\u0001garbage")).toMatchObject({ type: "unrecognised" });
    const noStatus = await parseBounceReport(
      [
        "Content-Type: multipart/report; report-type=delivery-status; boundary=x",
        "",
        "--x",
        "Content-Type: text/plain",
        "",
        "hi",
        "--x--",
        "",
      ].join("\r\n"),
    );
    expect(noStatus).toMatchObject({ type: "unrecognised" });
  });
});
