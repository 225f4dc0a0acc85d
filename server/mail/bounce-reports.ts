import type { ParsedMail } from "mailparser";

/**
 * Reads what comes back to the bounce address: delivery status notifications (RFC 3464,
 * multipart/report; report-type=delivery-status) and complaint reports (ARF, RFC 5965,
 * multipart/report; report-type=feedback-report). Pure: deciding which delivery a report is about
 * (and whether to believe it) is the listener's job.
 */

export interface DsnRecipient {
  /** Final-Recipient without its address type ("rfc822;") */
  finalRecipient: string | null;
  action: string;
  /** the enhanced status code, e.g. 5.1.1 */
  status: string;
  diagnostic: string | null;
}

export type BounceReport =
  | {
      type: "dsn";
      /** the first recipient whose delivery failed for good (Action: failed, Status 5.x.x); null: delayed, relayed… */
      hardBounce: DsnRecipient | null;
      recipients: DsnRecipient[];
      /** X-Herald-Delivery values of the returned original message or its headers */
      headerTokens: string[];
    }
  | {
      type: "arf";
      feedbackType: string;
      /** Feedback-Type: abuse */
      complaint: boolean;
      originalMailFrom: string | null;
      originalRcptTo: string | null;
      userAgent: string | null;
      headerTokens: string[];
    }
  | { type: "unrecognised"; reason: string };

/** Header-style fields (RFC 822 folding) in blocks separated by blank lines; names lower-cased. */
export function parseFieldBlocks(text: string): Map<string, string>[] {
  const blocks: Map<string, string>[] = [];
  let current = new Map<string, string>();
  let last: string | null = null;
  for (const line of text.replace(/\r\n?/g, "\n").split("\n")) {
    if (line.trim() === "") {
      if (current.size > 0) blocks.push(current);
      current = new Map();
      last = null;
      continue;
    }
    if (/^[ \t]/.test(line) && last) {
      current.set(last, `${current.get(last) ?? ""} ${line.trim()}`);
      continue;
    }
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    last = line.slice(0, colon).trim().toLowerCase();
    if (!current.has(last)) current.set(last, line.slice(colon + 1).trim());
  }
  if (current.size > 0) blocks.push(current);
  return blocks;
}

/** "rfc822; someone@example.com" → "someone@example.com" */
function withoutAddressType(value: string | undefined): string | null {
  if (!value) return null;
  const semicolon = value.indexOf(";");
  const address = (semicolon === -1 ? value : value.slice(semicolon + 1)).trim();
  return address.replace(/^<|>$/g, "") || null;
}

const TOKEN_HEADER = /^X-Herald-Delivery:[ \t]*([^\s;]{1,80})/gim;
const ORIGINAL_TYPES = ["message/rfc822", "text/rfc822-headers", "message/global"];

/**
 * X-Herald-Delivery values in the header section of the report's returned original (its
 * message/rfc822 or text/rfc822-headers part), not in anything quoted in a body. Read from the raw
 * report: mailparser flattens an inline message/rfc822 into text and its headers are lost.
 */
function headerTokensOf(raw: string, boundary: string | undefined): string[] {
  if (!boundary) return [];
  const tokens = new Set<string>();
  for (const part of raw.split(`--${boundary}`).slice(1)) {
    const [partHeaders, ...rest] = part.split(/\r?\n\r?\n/);
    if (!partHeaders || rest.length === 0) continue;
    const fields = parseFieldBlocks(partHeaders)[0];
    const type = fields?.get("content-type")?.split(";")[0]?.trim().toLowerCase() ?? "";
    if (!ORIGINAL_TYPES.includes(type)) continue;
    let body = rest.join("\n\n");
    if (fields?.get("content-transfer-encoding")?.toLowerCase() === "base64") {
      body = Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
    }
    const headers = body.split(/\r?\n\r?\n/)[0] ?? "";
    for (const match of headers.matchAll(TOKEN_HEADER)) if (match[1]) tokens.add(match[1]);
  }
  return [...tokens];
}

function partOf(mail: ParsedMail, ...types: string[]): string | null {
  const part = mail.attachments.find((each) => types.includes(each.contentType.toLowerCase()));
  return part ? part.content.toString("utf8") : null;
}

/** Classifies a parsed message (simpleParser with keepDeliveryStatus: true) and its raw text. */
export function classifyReport(mail: ParsedMail, raw: string): BounceReport {
  const contentType = mail.headers.get("content-type") as
    | { value?: string; params?: Record<string, string> }
    | undefined;
  if (contentType?.value?.toLowerCase() !== "multipart/report") {
    return { type: "unrecognised", reason: "not a multipart/report" };
  }
  const reportType = contentType.params?.["report-type"]?.toLowerCase();
  if (reportType === "delivery-status") {
    const status = partOf(mail, "message/delivery-status", "message/global-delivery-status");
    if (!status) return { type: "unrecognised", reason: "no message/delivery-status part" };
    // The first block is about the message, each further one about a recipient.
    const recipients = parseFieldBlocks(status)
      .filter((block) => block.has("action") && block.has("status"))
      .map((block) => ({
        finalRecipient: withoutAddressType(block.get("final-recipient")),
        action: (block.get("action") ?? "").toLowerCase(),
        status: /^\s*([245]\.\d{1,3}\.\d{1,3})/.exec(block.get("status") ?? "")?.[1] ?? "",
        diagnostic: block.get("diagnostic-code")?.slice(0, 500) ?? null,
      }));
    if (recipients.length === 0) {
      return { type: "unrecognised", reason: "a delivery status without recipients" };
    }
    return {
      type: "dsn",
      hardBounce:
        recipients.find(
          (recipient) => recipient.action === "failed" && recipient.status.startsWith("5."),
        ) ?? null,
      recipients,
      headerTokens: headerTokensOf(raw, contentType.params?.boundary),
    };
  }
  if (reportType === "feedback-report") {
    const report = partOf(mail, "message/feedback-report");
    const fields = report ? parseFieldBlocks(report)[0] : undefined;
    const feedbackType = fields?.get("feedback-type")?.toLowerCase();
    if (!fields || !feedbackType) {
      return { type: "unrecognised", reason: "no message/feedback-report with a Feedback-Type" };
    }
    return {
      type: "arf",
      feedbackType,
      complaint: feedbackType === "abuse",
      originalMailFrom: withoutAddressType(fields.get("original-mail-from")),
      originalRcptTo: withoutAddressType(fields.get("original-rcpt-to")),
      userAgent: fields.get("user-agent") ?? null,
      headerTokens: headerTokensOf(raw, contentType.params?.boundary),
    };
  }
  return { type: "unrecognised", reason: `report-type ${reportType ?? "missing"}` };
}

/** Parses raw MIME and classifies it; anything mailparser cannot read is unrecognised. */
export async function parseBounceReport(raw: Buffer | string): Promise<BounceReport> {
  try {
    // Loaded on the first report: most servers never receive one (and it is a large parser).
    const { simpleParser } = await import("mailparser");
    const mail = await simpleParser(raw, {
      keepDeliveryStatus: true,
      skipHtmlToText: true,
      skipTextToHtml: true,
      skipImageLinks: true,
    });
    return classifyReport(mail, typeof raw === "string" ? raw : raw.toString("utf8"));
  } catch (error) {
    return {
      type: "unrecognised",
      reason: `unreadable: ${error instanceof Error ? error.message : String(error)}`.slice(0, 200),
    };
  }
}
