/**
 * The parts of bench/neighbours.ts (issue 44, target 3): its sizes, what tenant A uploads (a Ghost
 * members CSV; a Ghost archive with one pathological post), the bulk seeding of A's recipients,
 * a sign-up-timing SMTP sink, latency series and the /metrics reading.
 */
import { sql } from "kysely";
import { SMTPServer } from "smtp-server";
import { createSession, SESSION_COOKIE } from "../server/auth/sessions";
import { createUser } from "../server/auth/users";
import type { Db } from "../server/db";
import { crossTenant } from "../server/db/tenant-guard";
import { largeGhostExport } from "../tests/support/archive-fixtures";
import { type BenchDialect, findFreePort, round, seriesOf } from "./lib";

const count = (name: string, fallback: number) => {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number`);
  return value;
};

/** The sizes; scaled down with the environment while developing on a shared machine. */
export const SIZES = {
  recipients: count("BENCH_RECIPIENTS", 100_000),
  members: count("BENCH_MEMBERS", 50_000),
  posts: count("BENCH_POSTS", 500),
  /** nested <div> of the pathological post */
  nestedDivs: count("BENCH_NESTED_DIVS", 20_000),
  /** inline tags (<b>, <i>, <a>, <span>) of the pathological post */
  inlineTags: count("BENCH_INLINE_TAGS", 200_000),
  signUps: count("BENCH_SIGNUPS", 20),
  /** tenant B's page loads a second, across its web instances (open loop: not waiting for answers) */
  pageRate: count("BENCH_PAGE_RATE", 20),
  /** the longest the load runs; it ends sooner once A's work and B's sign-ups are done */
  seconds: count("BENCH_SECONDS", 120),
};

/** The targets. */
export const TARGETS = {
  pageP99Ms: 100,
  healthzP99Ms: 50,
  eventLoopP99Ms: 50,
  confirmationP95Ms: 5_000,
};

/** A Ghost members export of `n` rows (Ghost's columns; a tenth not subscribed to emails). */
export function ghostMembersCsv(n: number): string {
  const lines = [
    "id,email,name,note,subscribed_to_emails,complimentary_plan,stripe_customer_id,created_at,deleted_at,labels,tiers",
  ];
  for (let i = 1; i <= n; i++) {
    const created = new Date(Date.UTC(2019, 0, 1) + i * 60_000).toISOString();
    lines.push(
      `${i.toString(16).padStart(24, "0")},member${i}@members.example,Member ${i},,${i % 10 !== 0},false,,${created},,"Imported, VIP",`,
    );
  }
  return `${lines.join("\n")}\n`;
}

export const PATHOLOGICAL_SLUG = "pathological-post";

/**
 * A Ghost JSON export of `posts` ordinary posts (tests/support/archive-fixtures.ts) and one more:
 * `nestedDivs` nested <div> holding `inlineTags` inline tags, under a long title (issue 44, #2/#3).
 */
export function ghostArchiveWithPathologicalPost(
  posts: number,
  nestedDivs: number,
  inlineTags: number,
): string {
  const archive = JSON.parse(largeGhostExport(posts));
  const tags = ["b", "i", "span", "em"];
  const inline = Array.from({ length: inlineTags }, (_, n) => {
    const tag = tags[n % tags.length];
    return n % 50 === 0
      ? `<a href="https://example.com/${n}">link ${n}</a>`
      : `<${tag}>w${n}</${tag}>`;
  }).join(" ");
  const html = `${"<div>".repeat(nestedDivs)}<blockquote>${inline}</blockquote>${"</div>".repeat(nestedDivs)}`;
  const data = archive.db[0].data;
  data.posts.push({
    id: "pathological",
    uuid: "uuid-pathological",
    title: `A very long title ${"that keeps going ".repeat(40)}`.trim(),
    slug: PATHOLOGICAL_SLUG,
    type: "post",
    status: "published",
    visibility: "public",
    html,
    custom_excerpt: "The post that was built to hurt",
    created_at: "2024-01-01T00:00:00.000Z",
    published_at: "2024-01-01T00:00:00.000Z",
  });
  data.posts_authors.push({ post_id: "pathological", author_id: "u1" });
  return JSON.stringify(archive);
}

/** `n` active subscribers of `tenantId` on list `listId`, in two INSERT … SELECT statements. */
export async function seedRecipients(
  db: Db,
  dialect: BenchDialect,
  tenantId: string,
  listId: number,
  n: number,
): Promise<void> {
  const now = new Date().toISOString();
  const all = crossTenant(db);
  await sql`insert into subscribers
      (tenant_id, email, name, status, subscribed_at, unsubscribed_at, created_at, updated_at)
    select ${tenantId}, 'reader-' || i || '@recipients.example', '', 'active', ${now}, null, ${now}, ${now}
    from ${seriesOf(dialect, n)}`.execute(all);
  await sql`insert into subscriptions (tenant_id, subscriber_id, list_id, created_at)
    select tenant_id, id, ${listId}, ${now} from subscribers
    where tenant_id = ${tenantId} and email like 'reader-%@recipients.example'`.execute(all);
}

/** A signed-in super admin's Cookie header (made in the database, as bench/scenarios.ts does). */
export async function staffSession(db: Db, email: string): Promise<string> {
  const user = await createUser(db, {
    email,
    password: "a long bench passphrase, never used to sign in",
    role: "super_admin",
  });
  const session = await createSession(db, user.id);
  return `${SESSION_COOKIE}=${session.token}`;
}

/** Latencies in ms, and their summary. */
export class Series {
  readonly values: number[] = [];
  failures = 0;
  record(ms: number, ok = true): void {
    this.values.push(ms);
    if (!ok) this.failures++;
  }
  summary() {
    const sorted = [...this.values].sort((a, b) => a - b);
    const at = (p: number) =>
      sorted.length
        ? round(
            sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0,
            1,
          )
        : null;
    return {
      count: sorted.length,
      failures: this.failures,
      p50Ms: at(50),
      p95Ms: at(95),
      p99Ms: at(99),
      maxMs: sorted.length ? round(sorted.at(-1) ?? 0, 1) : null,
    };
  }
}

/** A GET timed to its last byte; failures (non-2xx, errors, 30 s) count as such. */
export async function timedGet(
  url: string,
  series: Series,
  headers: Record<string, string> = {},
): Promise<void> {
  const started = performance.now();
  try {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(30_000) });
    await response.arrayBuffer();
    series.record(performance.now() - started, response.ok);
  } catch {
    series.record(performance.now() - started, false);
  }
}

/**
 * herald_event_loop_delay_seconds from a /metrics (ms): p50, p99 and max since the previous
 * scrape, which also starts the next window.
 */
export async function eventLoopDelay(
  metricsUrl: string,
  token: string,
): Promise<{ p50Ms: number; p99Ms: number; maxMs: number } | null> {
  try {
    const response = await fetch(metricsUrl, {
      headers: { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(30_000),
    });
    const text = await response.text();
    const read = (stat: string) => {
      const match = new RegExp(
        `^herald_event_loop_delay_seconds\\{stat="${stat}"\\} (\\S+)$`,
        "m",
      ).exec(text);
      return match ? round(Number(match[1]) * 1000, 1) : Number.NaN;
    };
    return { p50Ms: read("p50"), p99Ms: read("p99"), maxMs: read("max") };
  } catch {
    return null;
  }
}

export interface TimingSink {
  port: number;
  url: string;
  /** campaign messages received (to reader-…@recipients.example) */
  campaignMessages: number;
  /** when a message to `address` arrived (performance.now()) */
  arrived(address: string): Promise<number>;
  stop(): Promise<void>;
}

/** A real SMTP server on loopback: counts the campaign's messages, times every other one's arrival. */
export async function startTimingSink(): Promise<TimingSink> {
  const port = await findFreePort();
  const arrivals = new Map<string, number>();
  const waiting = new Map<string, (at: number) => void>();
  const sink: TimingSink = {
    port,
    url: `smtp://127.0.0.1:${port}`,
    campaignMessages: 0,
    arrived(address) {
      const at = arrivals.get(address);
      if (at !== undefined) return Promise.resolve(at);
      return new Promise((resolve) => waiting.set(address, resolve));
    },
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    maxClients: 256,
    onData(stream, session, callback) {
      stream.resume();
      stream.on("end", () => {
        const at = performance.now();
        for (const { address } of session.envelope.rcptTo) {
          if (address.endsWith("@recipients.example")) {
            sink.campaignMessages++;
            continue;
          }
          arrivals.set(address, at);
          waiting.get(address)?.(at);
          waiting.delete(address);
        }
        callback();
      });
    },
  });
  server.on("error", () => {});
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return sink;
}
