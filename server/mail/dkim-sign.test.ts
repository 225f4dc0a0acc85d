import { generateKeyPairSync } from "node:crypto";
import { dkimVerify } from "mailauth/lib/dkim/verify";
import { describe, expect, it } from "vitest";
import { dkimSignatureFor, dkimSignaturesFor } from "./dkim-sign";

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

describe("DKIM signing both ways (RFC 8463: RSA and Ed25519 on one message)", () => {
  const rsa = keys("rsa");
  const ed = keys("ed25519");
  const signers = [
    { algorithm: "rsa", domainName: "example.com", keySelector: "s1", privateKey: rsa.privateKey },
    {
      algorithm: "ed25519",
      domainName: "example.com",
      keySelector: "e1",
      privateKey: ed.privateKey,
    },
  ] as const;
  const records: Record<string, string> = {
    "s1._domainkey.example.com": rsa.record,
    "e1._domainkey.example.com": ed.record,
  };
  const verifyBoth = async (message: Buffer) => {
    const resolver = async (name: string) => {
      const record = records[name];
      if (!record) throw Object.assign(new Error("nx"), { code: "ENOTFOUND" });
      return [[record]];
    };
    const { results } = await dkimVerify(message, { resolver });
    return results.map((result) => `${result.selector}: ${result.status.result}`);
  };
  // A body as nodemailer writes it: base64 lines with CRLF and MIME boundaries (the fast path),
  // then the same with whitespace runs and bare LF (full canonicalization).
  const base64 = Buffer.from("Hello reader, ".repeat(200)).toString("base64");
  const canonicalBody = `--b\r\nContent-Type: text/plain\r\n\r\n${base64.match(/.{1,76}/g)?.join("\r\n")}\r\n--b--\r\n\r\n\r\n`;
  const head = "From: Herald <news@example.com>\r\nTo: reader@example.org\r\nSubject: Both\r\n";

  it.each([
    ["already canonical (hashed without copying)", canonicalBody],
    ["needing canonicalization", "Hello  \t reader,   \n\n  indented\n\n\n"],
    // Each on its own: a fast path that missed one would hash the raw bytes, and mailauth would not verify.
    ["with a tab in a CRLF line", "line\tone\r\nline two\r\n"],
    ["with a run of spaces in a CRLF line", "line  one\r\nline two\r\n"],
    ["with a space at a CRLF line's end", "line one \r\nline two\r\n"],
    ["empty", ""],
  ])("signs a body %s with both keys, RSA on top, and both verify", async (_name, body) => {
    const message = Buffer.from(`${head}\r\n${body}`, "latin1");
    const headers = await dkimSignaturesFor(message, signers, HEADERS);
    expect(headers.match(/^DKIM-Signature:/gm)).toHaveLength(2);
    expect(headers.indexOf("a=rsa-sha256")).toBeLessThan(headers.indexOf("a=ed25519-sha256"));
    // One body hash and one header list for both.
    const bh = [...headers.matchAll(/bh=([^;]+);/g)].map((match) => match[1]);
    expect(bh[0]).toBe(bh[1]);
    const signed = Buffer.concat([Buffer.from(headers, "latin1"), message]);
    const lf = signed.toString("latin1").replace(/\r?\n/g, "\r\n");
    expect(await verifyBoth(Buffer.from(lf, "latin1"))).toEqual(["s1: pass", "e1: pass"]);
    // The same hash as the one-key path computes from the text.
    const single = await dkimSignatureFor(message.toString("latin1"), signers[1], HEADERS);
    expect(single).toContain(`bh=${bh[0]};`);
  });

  it("fails both when the body or a signed header changes", async () => {
    const message = Buffer.from(`${head}\r\n${canonicalBody}`, "latin1");
    const signed = `${await dkimSignaturesFor(message, signers, HEADERS)}${message.toString("latin1")}`;
    const body = Buffer.from(signed.replace("SGVsbG8", "SGVsbG9"), "latin1");
    expect(await verifyBoth(body)).toEqual(["s1: neutral", "e1: neutral"]);
    const subject = Buffer.from(signed.replace("Subject: Both", "Subject: Changed"), "latin1");
    expect(await verifyBoth(subject)).toEqual(["s1: fail", "e1: fail"]);
  });

  it("signs nothing without keys", async () => {
    expect(await dkimSignaturesFor(Buffer.from(`${head}\r\nx\r\n`), [], HEADERS)).toBe("");
  });
});
