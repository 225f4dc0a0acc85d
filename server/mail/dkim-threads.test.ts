import { generateKeyPairSync } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { dkimSignaturesFor, stopSigningThreads } from "./dkim-threads";

const message = Buffer.from(
  "From: Herald <news@example.com>\r\nTo: reader@example.org\r\nSubject: Hi\r\n\r\nHello\r\n",
  "latin1",
);
const pair = generateKeyPairSync("ed25519");
const signer = {
  algorithm: "ed25519",
  domainName: "example.com",
  keySelector: "e1",
  privateKey: pair.privateKey,
} as const;

describe("the DKIM signing threads", () => {
  afterEach(() => stopSigningThreads());

  it("sign many messages at once, each answered under its own request", async () => {
    const messages = Array.from({ length: 50 }, (_, index) =>
      Buffer.from(message.toString("latin1").replace("Hello", `Hello ${index}`), "latin1"),
    );
    const headers = await Promise.all(
      messages.map((each) => dkimSignaturesFor(each, [signer], ["From", "To", "Subject"])),
    );
    const bodyHashes = new Set(headers.map((header) => /bh=([^;]+);/.exec(header)?.[1]));
    expect(bodyHashes.size).toBe(50);
  });

  it("fail what a stopped thread held, and a new thread signs the next message", async () => {
    // No thread runs (afterEach stops them): this one is still starting when it is stopped, so
    // it never answers.
    const held = dkimSignaturesFor(message, [signer], ["From"]);
    await stopSigningThreads();
    await expect(held).rejects.toThrow(/stopped/);
    await expect(dkimSignaturesFor(message, [signer], ["From"])).resolves.toMatch(
      /^DKIM-Signature: v=1;/,
    );
  });

  it("answer a key that cannot sign with an error, not a signature", async () => {
    const wrong = { ...signer, privateKey: pair.publicKey };
    await expect(dkimSignaturesFor(message, [wrong], ["From"])).rejects.toThrow(
      /DKIM signing failed/,
    );
  });
});
