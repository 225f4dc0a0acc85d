import type { SMTPServerAddress, SMTPServerDataStream } from "smtp-server";
import type { Db } from "../db";
import type { Env } from "../env";
import type { Logger } from "../logger";
import { type BounceReport, parseBounceReport } from "../mail/bounce-reports";
import { deliveryOfToken, type FeedbackKind, recordDeliveryFeedback, verpToken } from "./bounces";

/** Reports larger than this are refused (552): a DSN with its original campaign message is far smaller. */
export const MAX_REPORT_BYTES = 1024 * 1024;
const MAX_RECIPIENTS = 10;

export interface BounceListenerOptions {
  db: Db;
  logger: Logger;
  sessionSecret: string;
  bounceDomain: string;
  port: number;
  host: string;
}

export interface BounceListener {
  /** the port listened on (useful with port 0) */
  port: number;
  close(): Promise<void>;
}

class SmtpReply extends Error {
  constructor(
    message: string,
    readonly responseCode: number,
  ) {
    super(message);
  }
}

/**
 * What one received report means for one recipient token: the delivery and what to record, or why
 * nothing is recorded. A DSN counts only for the delivery its VERP recipient names; a complaint
 * (which feedback loops may send to a fixed address) also for the signed X-Herald-Delivery header
 * or the VERP Original-Mail-From of the message it reports.
 */
export function feedbackFrom(
  report: BounceReport,
  recipientToken: string | null,
  verify: (token: string | null) => number | null,
  bounceDomain: string,
):
  | { ok: true; deliveryId: number; kind: FeedbackKind; detail: string }
  | { ok: false; level: "warn" | "info"; reason: string } {
  if (report.type === "unrecognised") return { ok: false, level: "warn", reason: report.reason };
  if (report.type === "dsn") {
    const deliveryId = verify(recipientToken);
    if (deliveryId === null) return { ok: false, level: "warn", reason: "bad delivery token" };
    if (!report.hardBounce) {
      const [first] = report.recipients;
      return {
        ok: false,
        level: "info",
        reason: `not a hard bounce (${first?.action ?? "?"} ${first?.status ?? "?"})`,
      };
    }
    const { status, diagnostic } = report.hardBounce;
    return {
      ok: true,
      deliveryId,
      kind: "bounce",
      detail: `DSN ${status}${diagnostic ? `: ${diagnostic}` : ""}`,
    };
  }
  const candidates = [
    recipientToken,
    ...report.headerTokens,
    report.originalMailFrom ? verpToken(report.originalMailFrom, bounceDomain) : null,
  ];
  const deliveryId =
    candidates.map((token) => verify(token)).find((id): id is number => id !== null) ?? null;
  if (deliveryId === null) return { ok: false, level: "warn", reason: "bad delivery token" };
  if (!report.complaint) {
    return { ok: false, level: "info", reason: `feedback type ${report.feedbackType}` };
  }
  return {
    ok: true,
    deliveryId,
    kind: "complaint",
    detail: `ARF ${report.feedbackType}${report.userAgent ? ` from ${report.userAgent}` : ""}`,
  };
}

async function readLimited(stream: SMTPServerDataStream): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    size += chunk.length;
    // Keep draining an oversized message (the client waits for our answer), but not storing it.
    if (size <= MAX_REPORT_BYTES) chunks.push(chunk);
  }
  if (stream.sizeExceeded || size > MAX_REPORT_BYTES) {
    throw new SmtpReply("Message too large for a bounce report", 552);
  }
  return Buffer.concat(chunks);
}

/**
 * The optional inbound SMTP listener (BOUNCE_SMTP_PORT): accepts mail for
 * bounces+{token}@{BOUNCE_DOMAIN} only, reads each message as a DSN or ARF report, and records a
 * hard bounce or complaint on the delivery its signed token names. Forged tokens, reports that are
 * neither, and garbage are accepted (so nothing bounces back) but change nothing and are logged.
 */
export async function startBounceListener(options: BounceListenerOptions): Promise<BounceListener> {
  const { db, logger, sessionSecret, bounceDomain } = options;
  const log = logger.child({ component: "bounce-listener" });
  const verify = (token: string | null) => deliveryOfToken(sessionSecret, token);

  async function handle(raw: Buffer, recipients: string[], remote: string): Promise<void> {
    const report = await parseBounceReport(raw);
    const tokens = [...new Set(recipients.map((address) => verpToken(address, bounceDomain)))];
    for (const token of tokens) {
      const outcome = feedbackFrom(report, token, verify, bounceDomain);
      if (!outcome.ok) {
        log[outcome.level](
          { remote, report: report.type, reason: outcome.reason, bytes: raw.length },
          "bounce report ignored",
        );
        continue;
      }
      const result = await recordDeliveryFeedback(db, outcome);
      log.info(
        { deliveryId: outcome.deliveryId, kind: outcome.kind, result, remote },
        "bounce report recorded",
      );
    }
  }

  // Loaded here, not at start: only a server with BOUNCE_SMTP_PORT listens for bounces.
  const { SMTPServer } = await import("smtp-server");
  const server = new SMTPServer({
    name: bounceDomain,
    banner: "Herald bounce processor",
    authOptional: true,
    // Bounces carry nothing secret; put TLS on the MX in front of this listener if you need it.
    disabledCommands: ["AUTH", "STARTTLS"],
    size: MAX_REPORT_BYTES,
    maxClients: 50,
    socketTimeout: 60_000,
    closeTimeout: 5_000,
    logger: false,
    onRcptTo(address: SMTPServerAddress, session, callback) {
      if (!verpToken(address.address, bounceDomain)) {
        callback(new SmtpReply("5.1.1 No such recipient here", 550));
        return;
      }
      if (session.envelope.rcptTo.length >= MAX_RECIPIENTS) {
        callback(new SmtpReply("4.5.3 Too many recipients", 452));
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const remote = session.remoteAddress;
      readLimited(stream)
        .then((raw) =>
          handle(
            raw,
            session.envelope.rcptTo.map((rcpt) => rcpt.address),
            remote,
          ),
        )
        .then(
          () => callback(),
          (error: unknown) => {
            if (error instanceof SmtpReply) {
              log.warn({ remote, reason: error.message }, "bounce report refused");
              callback(error);
              return;
            }
            // The database failed: a 4xx makes the sending MTA try again later.
            log.error({ err: error, remote }, "bounce report not recorded");
            callback(new SmtpReply("4.3.0 Temporary failure, try again later", 451));
          },
        );
    },
  });
  server.on("error", (error) => log.error({ err: error }, "bounce listener error"));

  const port = await new Promise<number>((resolve, reject) => {
    const fail = (error: Error) => reject(error);
    server.server.once("error", fail);
    server.listen(options.port, options.host, () => {
      server.server.off("error", fail);
      const address = server.server.address();
      resolve(typeof address === "object" && address ? address.port : options.port);
    });
  });
  log.info({ host: options.host, port, bounceDomain }, "bounce listener started");
  return {
    port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The listener BOUNCE_SMTP_PORT asks for (on BOUNCE_SMTP_HOST, for BOUNCE_DOMAIN); null when unset. */
export async function bounceListenerFor(
  env: Pick<Env, "BOUNCE_SMTP_PORT" | "BOUNCE_SMTP_HOST" | "BOUNCE_DOMAIN">,
  options: Pick<BounceListenerOptions, "db" | "logger" | "sessionSecret">,
): Promise<BounceListener | null> {
  if (env.BOUNCE_SMTP_PORT === undefined) return null;
  return startBounceListener({
    ...options,
    bounceDomain: env.BOUNCE_DOMAIN,
    port: env.BOUNCE_SMTP_PORT,
    host: env.BOUNCE_SMTP_HOST,
  });
}
