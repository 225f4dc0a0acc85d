import { generateKeyPairSync } from "node:crypto";
import { dkimVerify } from "mailauth/lib/dkim/verify";
import { describe, expect, it } from "vitest";
import { dkimSignatureFor } from "./dkim-sign";

// Messages with the awkward parts of canonicalization — folded and repeated headers, runs of
// spaces and tabs, trailing whitespace and empty lines, bare LF — verified by mailauth.
const MESSAGE = [
  "From: Herald <news@example.com>",
  "To:   reader@example.org ",
  "Subject: A\t subject  with   spaces",
  "List-Unsubscribe:",
  " <https://example.com/u/1>,",
  "\t<mailto:news@example.com?subject=unsubscribe>",
  "Received: from a",
  "Received: from b",
  "Date: Mon, 23 Nov 2026 10:00:00 +0000",
  "",
  "Hello  \t reader,   ",
  "",
  "  indented line",
  "",
  "",
  "",
].join("\r\n");

const HEADERS = ["From", "To", "Subject", "Date", "List-Unsubscribe", "Received", "Cc"];

function keys(algorithm: "rsa" | "ed25519") {
  const pair =
    algorithm === "rsa"
      ? generateKeyPairSync("rsa", { modulusLength: 2048 })
      : generateKeyPairSync("ed25519");
  const spki = pair.publicKey.export({ type: "spki", format: "der" });
  const published = (algorithm === "rsa" ? spki : spki.subarray(-32)).toString("base64");
  return { privateKey: pair.privateKey, record: `v=DKIM1; k=${algorithm}; p=${published}` };
}

async function verify(message: string, record: string) {
  const resolver = async (name: string) => {
    if (name !== "s1._domainkey.example.com")
      throw Object.assign(new Error("nx"), { code: "ENOTFOUND" });
    return [[record]];
  };
  const { results } = await dkimVerify(Buffer.from(message, "latin1"), { resolver });
  return results.map((result) => result.status.result);
}

describe.each(["rsa", "ed25519"] as const)("DKIM signing with %s", (algorithm) => {
  const { privateKey, record } = keys(algorithm);
  const signer = { algorithm, domainName: "example.com", keySelector: "s1", privateKey };

  it("verifies, with only the listed fields the message has in h=", async () => {
    const header = await dkimSignatureFor(MESSAGE, signer, HEADERS);
    expect(header).toMatch(/^DKIM-Signature: v=1;\r\n a=/);
    expect(header.replace(/\s/g, "")).toContain(
      "h=from:to:subject:date:list-unsubscribe:received;",
    );
    expect(await verify(header + MESSAGE, record)).toEqual(["pass"]);
  });

  it("verifies a message with bare LF line ends once SMTP makes them CRLF", async () => {
    const lf = MESSAGE.replace(/\r\n/g, "\n");
    const header = await dkimSignatureFor(lf, signer, HEADERS);
    expect(await verify((header + lf).replace(/\r?\n/g, "\r\n"), record)).toEqual(["pass"]);
  });

  it("fails when the body or a signed header changes", async () => {
    const header = await dkimSignatureFor(MESSAGE, signer, HEADERS);
    // mailauth calls a body hash mismatch "neutral" (with "body hash did not verify"), a bad signature "fail".
    expect(await verify(header + MESSAGE.replace("reader,", "Reader,"), record)).toEqual([
      "neutral",
    ]);
    expect(await verify(header + MESSAGE.replace("from b", "from c"), record)).toEqual(["fail"]);
  });
});
