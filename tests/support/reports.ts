/** Raw MIME bounce (RFC 3464 DSN) and complaint (RFC 5965 ARF) reports, as real MTAs send them. */

const join = (lines: string[]) => `${lines.join("\r\n")}\r\n`;

export function dsnMessage(options: {
  to: string;
  finalRecipient: string;
  action?: string;
  status?: string;
  diagnostic?: string;
  /** header lines of the returned message */
  originalHeaders?: string[];
}): string {
  const status = options.status ?? "5.1.1";
  return join([
    "From: Mail Delivery System <MAILER-DAEMON@mx.example.net>",
    `To: ${options.to}`,
    "Subject: Undelivered Mail Returned to Sender",
    "Date: Mon, 6 Jan 2025 10:00:00 +0000",
    "Message-ID: <dsn.1@mx.example.net>",
    "Auto-Submitted: auto-replied",
    "MIME-Version: 1.0",
    'Content-Type: multipart/report; report-type=delivery-status; boundary="=_dsn_boundary"',
    "",
    "This is a MIME-encapsulated message.",
    "",
    "--=_dsn_boundary",
    "Content-Type: text/plain; charset=us-ascii",
    "",
    "I'm sorry to have to inform you that your message could not",
    "be delivered to one or more recipients.",
    "",
    "--=_dsn_boundary",
    "Content-Type: message/delivery-status",
    "",
    "Reporting-MTA: dns; mx.example.net",
    "Arrival-Date: Mon, 6 Jan 2025 09:59:58 +0000",
    "",
    `Final-Recipient: rfc822; ${options.finalRecipient}`,
    `Original-Recipient: rfc822;${options.finalRecipient}`,
    `Action: ${options.action ?? "failed"}`,
    `Status: ${status}`,
    "Remote-MTA: dns; mail.example.org",
    `Diagnostic-Code: smtp; ${options.diagnostic ?? `550 ${status} <${options.finalRecipient}>: Recipient address`}`,
    "    rejected: User unknown in virtual mailbox table",
    "",
    "--=_dsn_boundary",
    "Content-Type: text/rfc822-headers",
    "",
    ...(options.originalHeaders ?? [
      "From: KeyDiscovery <newsletter@keydiscovery.com>",
      `To: ${options.finalRecipient}`,
      "Subject: Issue 1",
    ]),
    "",
    "--=_dsn_boundary--",
  ]);
}

export function arfMessage(options: {
  to: string;
  feedbackType?: string;
  originalMailFrom?: string;
  originalRcptTo: string;
  /** header lines of the reported message */
  originalHeaders?: string[];
}): string {
  return join([
    "From: Feedback Loop <fbl@isp.example.net>",
    `To: ${options.to}`,
    "Subject: FW: Issue 1",
    "Date: Mon, 6 Jan 2025 11:00:00 +0000",
    "Message-ID: <arf.1@isp.example.net>",
    "MIME-Version: 1.0",
    'Content-Type: multipart/report; report-type=feedback-report; boundary="=_arf_boundary"',
    "",
    "--=_arf_boundary",
    "Content-Type: text/plain; charset=us-ascii",
    "Content-Transfer-Encoding: 7bit",
    "",
    "This is an email abuse report for an email message received from IP",
    "192.0.2.1 on Mon, 6 Jan 2025 10:00:00 +0000.",
    "",
    "--=_arf_boundary",
    "Content-Type: message/feedback-report",
    "",
    `Feedback-Type: ${options.feedbackType ?? "abuse"}`,
    "User-Agent: SomeGenerator/1.0",
    "Version: 1",
    ...(options.originalMailFrom ? [`Original-Mail-From: <${options.originalMailFrom}>`] : []),
    `Original-Rcpt-To: <${options.originalRcptTo}>`,
    "Arrival-Date: Mon, 6 Jan 2025 10:00:00 +0000",
    "Reported-Domain: keydiscovery.com",
    "Source-IP: 192.0.2.1",
    "",
    "--=_arf_boundary",
    "Content-Type: message/rfc822",
    "Content-Disposition: inline",
    "",
    ...(options.originalHeaders ?? [
      "From: KeyDiscovery <newsletter@keydiscovery.com>",
      `To: ${options.originalRcptTo}`,
      "Subject: Issue 1",
    ]),
    "MIME-Version: 1.0",
    "Content-Type: text/plain; charset=utf-8",
    "",
    "The newsletter text.",
    "X-Herald-Delivery: 1.000000000000000000000000",
    "",
    "--=_arf_boundary--",
  ]);
}
