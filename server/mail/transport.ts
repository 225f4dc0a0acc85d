import nodemailer, { type PluginFunction, type SendMailOptions } from "nodemailer";
import type { DkimSigningKey } from "./dkim";
import { WholeMessageStream } from "./dkim-sign";
import { messageIdFor } from "./headers";

export interface OutgoingMessage {
  from: { name: string; email: string };
  to: string;
  subject: string;
  html: string;
  text: string;
  headers: Record<string, string>;
  /** a fixed Message-ID (campaign deliveries); otherwise a random one */
  messageId?: string;
  /** the SMTP envelope sender (MAIL FROM) when it is not the From address: campaign mail's VERP address */
  envelopeFrom?: string;
  /** the tenant's DKIM keys (server/mail/dkim.ts): SMTP signs with each; the outbox keeps mail unsigned */
  dkim?: DkimSigningKey;
}

/**
 * Headers a DKIM signature covers: RFC 6376 §5.4.1's list (nodemailer's default) plus
 * List-Unsubscribe-Post, which RFC 8058 §4 (and Gmail's one-click unsubscribe) wants signed along
 * with List-Unsubscribe.
 */
const DKIM_SIGNED_HEADERS = (
  "From:Sender:Reply-To:Subject:Date:Message-ID:To:Cc:MIME-Version:Content-Type:" +
  "Content-Transfer-Encoding:Content-ID:Content-Description:Resent-Date:Resent-From:" +
  "Resent-Sender:Resent-To:Resent-Cc:Resent-Message-ID:In-Reply-To:References:List-Id:" +
  "List-Help:List-Unsubscribe:List-Unsubscribe-Post:List-Subscribe:List-Post:List-Owner:" +
  "List-Archive"
).split(":");

export interface Transport {
  /** "smtp" hands messages to a server; "outbox" only keeps them (development default). */
  readonly kind: "smtp" | "outbox";
  deliver(message: OutgoingMessage): Promise<{ messageId: string }>;
  close(): void;
}

/**
 * Why a message could not be handed over, whether trying again may help (4xx, network), and
 * whether the server refused the recipient for good (a hard bounce: the address is suppressed).
 */
export class DeliveryError extends Error {
  constructor(
    message: string,
    readonly transient: boolean,
    readonly hardBounce = false,
  ) {
    super(message);
  }
}

interface SmtpFailure {
  message?: string;
  responseCode?: number;
  response?: string;
  code?: string;
  /** the SMTP command that was refused (nodemailer) */
  command?: string;
}

/**
 * A permanent refusal of the recipient: a 5xx to RCPT TO, or an enhanced status 5.1.x (bad
 * mailbox) at any step. Policy refusals (5.7.x, e.g. a relay that will not relay) are not the
 * address's fault, and suppressing the whole list for a misconfigured relay would be a disaster.
 */
export function isHardBounce(failure: SmtpFailure): boolean {
  const code = failure.responseCode;
  if (typeof code !== "number" || code < 500) return false;
  const response = failure.response ?? "";
  if (/\b5\.1\.\d{1,3}\b/.test(response)) return true;
  return failure.command === "RCPT TO" && !/\b5\.7\.\d{1,3}\b/.test(response);
}

/** Connections of the transactional pool: a burst of sign-ups, with one slow message among them. */
export const TRANSACTIONAL_CONNECTIONS = 3;

/**
 * Two pools to the one relay (issue 44): campaigns send through `campaign`, SEND_CONCURRENCY
 * connections, and everything else (confirmations, verifications, password resets, test sends)
 * through `transactional`, connections of its own. Shared, a campaign held all but one connection,
 * and one slow message on that one queued every tenant's sign-up mail behind the campaign.
 */
export function mailTransports(
  smtpUrl: string | undefined,
  sendConcurrency: number,
): { transactional: Transport; campaign: Transport } {
  if (!smtpUrl) {
    const outbox = outboxTransport();
    return { transactional: outbox, campaign: outbox };
  }
  return {
    transactional: smtpTransport(smtpUrl, TRANSACTIONAL_CONNECTIONS),
    campaign: smtpTransport(smtpUrl, sendConcurrency),
  };
}

/** SMTP through a pooled nodemailer transport (DESIGN.md §5). */
export function smtpTransport(url: string, maxConnections = 5): Transport {
  const target = new URL(url);
  const transporter = nodemailer.createTransport({
    pool: true,
    maxConnections,
    // Keep connections open for whole campaigns instead of reconnecting every 100 messages.
    maxMessages: Number.POSITIVE_INFINITY,
    host: target.hostname,
    port: Number(target.port || (target.protocol === "smtps:" ? 465 : 587)),
    secure: target.protocol === "smtps:",
    auth: target.username
      ? { user: decodeURIComponent(target.username), pass: decodeURIComponent(target.password) }
      : undefined,
    // Loopback relays (the usual smarthost, and the test sink) need no TLS; elsewhere STARTTLS is used when offered.
    ignoreTLS: ["127.0.0.1", "localhost", "::1"].includes(target.hostname),
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
  transporter.use("stream", wholeAndSigned);
  return {
    kind: "smtp",
    async deliver(message) {
      // The tenant's keys ride along to the wholeAndSigned plugin.
      const options: SendMailOptions & { [DKIM_KEY]?: DkimSigningKey } = {
        from: { name: message.from.name, address: message.from.email },
        to: message.to,
        subject: message.subject,
        html: message.html,
        text: message.text,
        headers: preparedHeaders(message.headers),
        ...(message.envelopeFrom
          ? { envelope: { from: message.envelopeFrom, to: message.to } }
          : {}),
        messageId: message.messageId ?? messageIdFor(message.from.email),
        // Base64 is encoded natively; quoted-printable in JavaScript costs a sixth of a campaign send.
        textEncoding: "base64",
        [DKIM_KEY]: message.dkim,
      };
      try {
        const info = await transporter.sendMail(options);
        return { messageId: info.messageId };
      } catch (error) {
        const failure = error as SmtpFailure;
        const permanent = typeof failure.responseCode === "number" && failure.responseCode >= 500;
        throw new DeliveryError(
          failure.response ?? failure.message ?? String(error),
          !permanent,
          isHardBounce(failure),
        );
      }
    },
    close() {
      transporter.close();
    },
  };
}

const DKIM_KEY = "heraldDkimKey" as const;

/**
 * nodemailer's "stream" plugin step: the message goes out in one piece, signed when its tenant has
 * keys (server/mail/dkim-sign.ts).
 */
const wholeAndSigned: PluginFunction = (mail, done) => {
  const keys = (mail.data as Record<string, unknown>)[DKIM_KEY] as DkimSigningKey | undefined;
  mail.message.transform(() => new WholeMessageStream(keys ?? [], DKIM_SIGNED_HEADERS));
  done();
};

/**
 * Herald's own headers are plain ASCII it built itself (List-Id, List-Unsubscribe): sent as they
 * are, only folded. Left to nodemailer, a List-Id's quoted phrase became one RFC 2047 encoded
 * word, and with it the list's id, which RFC 2919 wants readable.
 */
function preparedHeaders(headers: Record<string, string>) {
  return Object.fromEntries(
    Object.entries(headers).map(([key, value]) => [
      key,
      // Address headers stay nodemailer's to encode: it drops a prepared Reply-To.
      /^[\x20-\x7e]*$/.test(value) && !ADDRESS_HEADERS.has(key.toLowerCase())
        ? { prepared: true, foldLines: true, value }
        : value,
    ]),
  );
}

const ADDRESS_HEADERS = new Set(["reply-to", "from", "to", "cc", "bcc", "sender"]);

/** Keeps every message for staff to read at /admin/outbox; nothing pretends to send. */
export function outboxTransport(): Transport {
  return {
    kind: "outbox",
    async deliver(message) {
      return { messageId: message.messageId ?? messageIdFor(message.from.email) };
    },
    close() {},
  };
}
