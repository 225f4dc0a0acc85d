import { createHmac } from "node:crypto";
import { describe, expect, it } from "vitest";
import { parseWebhookEvents, verifyMailerLiteSignature } from "./mailerlite-webhook";

const sign = (secret: string, body: string) =>
  createHmac("sha256", secret).update(body).digest("hex");

describe("MailerLite webhook signatures", () => {
  const body = '{"event":"subscriber.unsubscribed","email":"a@example.com"}';
  it("accept the HMAC of the raw body and nothing else", () => {
    expect(verifyMailerLiteSignature("s3cret", body, sign("s3cret", body))).toBe(true);
    expect(verifyMailerLiteSignature("s3cret", `${body} `, sign("s3cret", body))).toBe(false);
    expect(verifyMailerLiteSignature("other", body, sign("s3cret", body))).toBe(false);
    expect(verifyMailerLiteSignature("s3cret", body, null)).toBe(false);
    expect(verifyMailerLiteSignature("s3cret", body, "zz")).toBe(false);
    expect(verifyMailerLiteSignature("", body, sign("", body))).toBe(false);
  });
});

describe("parseWebhookEvents", () => {
  it("reads single and batched events, with their time, and ignores other kinds", () => {
    expect(
      parseWebhookEvents({
        event: "subscriber.unsubscribed",
        email: "A@Example.com",
        unsubscribed_at: "2026-11-23 09:00:00",
      }),
    ).toEqual([
      {
        id: expect.stringMatching(/^sha256:[0-9a-f]{64}$/),
        type: "subscriber.unsubscribed",
        email: "a@example.com",
        at: Date.parse("2026-11-23T09:00:00Z"),
      },
    ]);
    expect(
      parseWebhookEvents({
        events: [
          {
            id: "evt-7",
            type: "subscriber.bounced",
            timestamp: 1795400000,
            data: { subscriber: { email: "b@example.com" } },
          },
          {
            type: "subscriber.created",
            timestamp: 1795400000,
            data: { subscriber: { email: "c@example.com" } },
          },
          {
            type: "subscriber.unsubscribed",
            data: { subscriber: { email: "no-time@example.com" } },
          },
        ],
      }),
    ).toEqual([
      { id: "id:evt-7", type: "subscriber.bounced", email: "b@example.com", at: 1795400000 * 1000 },
    ]);
    expect(parseWebhookEvents("nonsense")).toEqual([]);
  });

  it("names an event without an id by its content, so a replay has the same name", () => {
    const event = {
      event: "subscriber.unsubscribed",
      email: "a@example.com",
      updated_at: 1795400000,
    };
    const [first] = parseWebhookEvents(event);
    const [again] = parseWebhookEvents({ ...event, email: "A@example.com " });
    const [other] = parseWebhookEvents({ ...event, email: "b@example.com" });
    expect(first?.id).toBe(again?.id);
    expect(first?.id).not.toBe(other?.id);
  });
});
