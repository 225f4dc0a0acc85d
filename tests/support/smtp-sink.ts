import type { Socket } from "node:net";
import { type ParsedMail, simpleParser } from "mailparser";
import { SMTPServer, type SMTPServerAddress } from "smtp-server";
import { relativeUrlsIn } from "./mail-urls";
import { scaled } from "./timing";

export interface ReceivedMail {
  /** RCPT TO addresses */
  to: string[];
  from: string;
  subject: string;
  html: string;
  text: string;
  messageId: string;
  /** header name (lower case) → value as text */
  headers: Map<string, string>;
  parsed: ParsedMail;
  /** the message exactly as received (for DKIM verification) */
  raw: Buffer;
}

export interface SmtpSink {
  url: string;
  port: number;
  messages: ReceivedMail[];
  /** Decide per message: undefined accepts; a number answers with that SMTP code (4xx or 5xx). */
  answer: (recipient: string) => number | undefined;
  /** Decide per connection: a number (e.g. 421) refuses it at the greeting; undefined lets it in. */
  refuseConnection: () => number | undefined;
  /**
   * Decide per message, as its data arrives: undefined keeps it and answers 250; "mid-data" cuts
   * the connection before the message is complete (nothing kept); "after-accept" keeps the message
   * and cuts the connection before the 250 is written, so the client cannot know it arrived (the
   * one case where a repeat is unavoidable).
   */
  cut: (mail: { to: string[] }) => "mid-data" | "after-accept" | undefined;
  /**
   * Decide per message, once it is kept: a promise holds its 250 until it settles (a slow or
   * stalled server; the sender sees the message in flight); undefined answers at once.
   */
  delay: (mail: { to: string[] }) => Promise<void> | undefined;
  /** Messages kept whose 250 a `delay` holds right now. */
  held: number;
  /** Message-IDs of the messages kept and then cut off by "after-accept", in order. */
  cutAfterAccept: string[];
  waitFor(predicate: (mail: ReceivedMail) => boolean, timeoutMs?: number): Promise<ReceivedMail>;
  /** Stops the server; fails if any mail it received carried a URL an inbox cannot open. */
  stop(): Promise<void>;
}

/** A real SMTP server on loopback that keeps what it receives (the test helpers' mail sink). */
export async function startSmtpSink(): Promise<SmtpSink> {
  const messages: ReceivedMail[] = [];
  /** every mail checked on arrival (issue 12): what a real inbox could not open */
  const relativeUrls: string[] = [];
  const sink: Partial<SmtpSink> = {
    messages,
    answer: () => undefined,
    refuseConnection: () => undefined,
    cut: () => undefined,
    delay: () => undefined,
    held: 0,
    cutAfterAccept: [],
  };
  /** the open connections, to cut one off (smtp-server keeps them with their sockets) */
  const socketOf = (sessionId: string) =>
    [
      ...(server as unknown as { connections: Set<{ id: string; _socket: Socket }> }).connections,
    ].find((connection) => connection.id === sessionId)?._socket;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onConnect(_session, callback) {
      const code = sink.refuseConnection?.();
      if (code) {
        const error = new Error("Too busy, try again later") as Error & { responseCode: number };
        error.responseCode = code;
        callback(error);
        return;
      }
      callback();
    },
    onRcptTo(address: SMTPServerAddress, _session, callback) {
      const code = sink.answer?.(address.address);
      if (code) {
        const error = new Error(
          code >= 500 ? "Mailbox unavailable" : "Try again later",
        ) as Error & { responseCode: number };
        error.responseCode = code;
        callback(error);
        return;
      }
      callback();
    },
    onData(stream, session, callback) {
      const to = session.envelope.rcptTo.map((rcpt) => rcpt.address);
      const cut = sink.cut?.({ to });
      if (cut === "mid-data") {
        stream.on("error", () => {});
        stream.once("data", () => socketOf(session.id)?.destroy());
        stream.resume();
        return;
      }
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      new Promise<Buffer>((resolve, reject) => {
        stream.once("end", () => resolve(Buffer.concat(chunks)));
        stream.once("error", reject);
      })
        .then(async (raw) => ({ raw, parsed: await simpleParser(raw) }))
        .then(({ raw, parsed }) => {
          const headers = new Map<string, string>();
          for (const line of parsed.headerLines)
            headers.set(line.key, line.line.slice(line.line.indexOf(":") + 1).trim());
          const html = typeof parsed.html === "string" ? parsed.html : "";
          const relative = relativeUrlsIn(html, headers);
          if (relative.length > 0) {
            relativeUrls.push(`"${parsed.subject ?? ""}": ${relative.join("; ")}`);
          }
          messages.push({
            to,
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "",
            subject: parsed.subject ?? "",
            html,
            text: parsed.text ?? "",
            messageId: parsed.messageId ?? "",
            headers,
            parsed,
            raw,
          });
          if (cut === "after-accept") {
            sink.cutAfterAccept?.push(parsed.messageId ?? "");
            socketOf(session.id)?.destroy();
            return;
          }
          const delay = sink.delay?.({ to });
          if (!delay) {
            callback();
            return;
          }
          sink.held = (sink.held ?? 0) + 1;
          return delay.finally(() => {
            sink.held = (sink.held ?? 1) - 1;
            callback();
          });
        })
        .catch(callback);
    },
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once("error", reject);
    // A client that hangs up mid-command (a sender killed or timing out) is not the sink's error:
    // unheard, smtp-server's 'error' event would end the test process.
    server.on("error", () => {});
    server.listen(0, "127.0.0.1", () => {
      const address = server.server.address();
      resolve(typeof address === "object" && address ? address.port : 0);
    });
  });
  return Object.assign(sink, {
    url: `smtp://127.0.0.1:${port}`,
    port,
    async waitFor(predicate: (mail: ReceivedMail) => boolean, timeoutMs = 10_000) {
      const deadline = Date.now() + scaled(timeoutMs);
      while (Date.now() < deadline) {
        const found = messages.find(predicate);
        if (found) return found;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(
        `no matching mail within ${scaled(timeoutMs)} ms (received ${messages.length})`,
      );
    },
    async stop() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      if (relativeUrls.length > 0) {
        throw new Error(`mail with URLs a real inbox cannot open:\n${relativeUrls.join("\n")}`);
      }
    },
  }) as SmtpSink;
}
