import { z } from "zod";
import { limitsEnv } from "./env-limits";
import { outsideServicesEnv, unsetWhenEmpty } from "./env-outside";

/** A DNS name (letters, digits, hyphens; dot-separated labels) such as bounces.example.com. */
const DOMAIN_NAME =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;

const DURATION = /^(\d+)(ms|s|m|h)$/;
const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const;

/**
 * A retry schedule: comma-separated waits such as `2s,10s,1m`, one per retry (so one more try in
 * all than there are waits), read into milliseconds. Unset or empty: `fallback`.
 */
const retryDelays = (fallback: string) =>
  z.preprocess(
    unsetWhenEmpty,
    z
      .string()
      .default(fallback)
      .transform((text, ctx) => {
        const delays: number[] = [];
        for (const part of text.split(",")) {
          const match = DURATION.exec(part.trim());
          const ms = match ? Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS] : 0;
          if (!match || ms <= 0 || ms > 7 * 24 * 3_600_000) {
            ctx.addIssue({
              code: "custom",
              message: `"${part.trim()}" is not a wait such as 500ms, 2s, 1m or 2h (at most 7 days)`,
            });
            return z.NEVER;
          }
          delays.push(ms);
        }
        if (delays.length > 20) {
          ctx.addIssue({ code: "custom", message: "at most 20 retries" });
          return z.NEVER;
        }
        return delays;
      }),
  );

const EVERY = /^(\d+)(s|m|h|d)$/;
const EVERY_UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** A duration such as 30m, 6h or 1d, in milliseconds; 0 when the text is not one. */
function everyMs(text: string): number {
  const match = EVERY.exec(text.trim());
  return match ? Number(match[1]) * EVERY_UNIT_MS[match[2] as keyof typeof EVERY_UNIT_MS] : 0;
}

/** How often scheduled backups run: one duration such as 30m, 6h or 1d (1 s to 30 days). */
const backupEvery = z.preprocess(
  unsetWhenEmpty,
  z
    .string()
    .optional()
    .transform((text, ctx) => {
      if (text === undefined) return undefined;
      const ms = everyMs(text);
      if (ms < 1_000 || ms > 30 * 86_400_000) {
        ctx.addIssue({
          code: "custom",
          message: `"${text}" is not a duration such as 30m, 6h or 1d (from 1s to 30d)`,
        });
        return z.NEVER;
      }
      return ms;
    }),
);

/** A DNS server: an IPv4 address or a bracketed IPv6 one, with an optional port. */
const DNS_SERVER = /^(?:\d{1,3}(?:\.\d{1,3}){3}|\[[0-9a-f:.]+\]|[0-9a-f:]+)(?::\d{1,5})?$/i;

/** The configuration contract of DESIGN.md §9, validated once at start. */
const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  DATABASE_URL: z
    .string()
    .default("file:./data/herald.db")
    .refine((url) => url.startsWith("file:") || /^postgres(ql)?:\/\//.test(url), {
      message: "must be file:<path> or postgres://…",
    }),
  APP_URL: z.url().optional(),
  SESSION_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  /** Seals secrets at rest (server/secret-box.ts); unset → generated once and kept in ./data. */
  HERALD_SECRET_KEY: z.preprocess(
    unsetWhenEmpty,
    z.string().min(32, "must be at least 32 characters").optional(),
  ),
  /** Keys that sealed before (comma-separated): still open, until `herald secrets rotate` re-seals. */
  HERALD_SECRET_KEY_PREVIOUS: z.preprocess(
    unsetWhenEmpty,
    z
      .string()
      .default("")
      .transform((text) =>
        text
          .split(",")
          .map((key) => key.trim())
          .filter(Boolean),
      )
      .pipe(z.array(z.string().min(32, "each key must be at least 32 characters"))),
  ),
  SMTP_URL: z.string().optional(),
  MAIL_PROVIDER: z.enum(["builtin", "mailerlite"]).default("builtin"),
  MAILERLITE_API_KEY: z.string().optional(),
  MAILERLITE_BASE_URL: z.url().optional(),
  ...outsideServicesEnv,
  ...limitsEnv,
  ADMIN_EMAIL: z.string().optional(),
  ADMIN_PASSWORD: z.string().optional(),
  SEND_RATE: z.coerce.number().min(0).default(50),
  SEND_CONCURRENCY: z.coerce.number().int().min(1).default(4),
  /** Waits before each retry of a campaign delivery refused with a 4xx or cut off (README, Campaigns). */
  SEND_RETRY_DELAYS: retryDelays("2s,10s,1m,5m,30m"),
  /** Waits before each retry of other mail (welcome, confirmation…) that could not be handed over. */
  MAIL_RETRY_DELAYS: retryDelays("1m,5m,30m,2h"),
  /** The bearer token a Prometheus scraper sends for /metrics; unset: /metrics answers 404. */
  METRICS_TOKEN: z.preprocess(
    unsetWhenEmpty,
    z.string().min(16, "must be at least 16 characters (a random token)").optional(),
  ),
  /** `herald worker` serves its own /metrics on this port (the web server uses PORT); unset: none. */
  METRICS_PORT: z.preprocess(unsetWhenEmpty, z.coerce.number().int().min(1).max(65535).optional()),
  /** "off": this web process does not send campaigns (run `npm run herald -- worker` instead). */
  SEND_WORKER: z.enum(["on", "off"]).default("on"),
  LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  /** The domain of campaign mail's VERP envelope sender, bounces+{token}@BOUNCE_DOMAIN (default: APP_URL's host). */
  BOUNCE_DOMAIN: z.preprocess(
    unsetWhenEmpty,
    z.string().regex(DOMAIN_NAME, "must be a domain name such as bounces.example.com").optional(),
  ),
  /** Starts the inbound SMTP listener for bounce (DSN) and complaint (ARF) reports; unset: off. */
  BOUNCE_SMTP_PORT: z.preprocess(
    unsetWhenEmpty,
    z.coerce.number().int().min(1).max(65535).optional(),
  ),
  BOUNCE_SMTP_HOST: z.preprocess(
    unsetWhenEmpty,
    z
      .union([z.ipv4(), z.ipv6(), z.string().regex(DOMAIN_NAME)], {
        error: "must be an IP address or a host name",
      })
      .default("127.0.0.1"),
  ),
  /**
   * Which proxies' X-Forwarded-For / -Proto / -Host are believed (Express's "trust proxy"): the
   * default believes only a proxy on this machine; a number trusts that many hops; otherwise
   * addresses and CIDR ranges, comma-separated. The client address decides every rate limit.
   */
  TRUST_PROXY: z.preprocess(
    unsetWhenEmpty,
    z
      .string()
      .regex(/^(\d+|true|false|[\w.:/]+(\s*,\s*[\w.:/]+)*)$/, {
        error:
          "must be a number of hops, true, false, or addresses/CIDR ranges separated by commas",
      })
      .default("loopback"),
  ),
  /**
   * The DNS servers the sender domain check asks (server/tenants/dns.ts), comma-separated: `1.1.1.1`,
   * `127.0.0.1:5353`, `[::1]:5353`; unset: the system's resolvers.
   */
  DNS_SERVERS: z.preprocess(
    unsetWhenEmpty,
    z
      .string()
      .optional()
      .transform((text, ctx) => {
        if (text === undefined) return undefined;
        const servers = text
          .split(",")
          .map((part) => part.trim())
          .filter(Boolean);
        for (const server of servers) {
          if (!DNS_SERVER.test(server)) {
            ctx.addIssue({
              code: "custom",
              message: `"${server}" is not a DNS server such as 1.1.1.1, 127.0.0.1:5353 or [::1]:5353`,
            });
            return z.NEVER;
          }
        }
        return servers;
      }),
  ),
  /** How often every tenant's sender domain is checked (`off`: only on demand); default 1d. */
  DOMAIN_CHECK_EVERY: z.preprocess(
    unsetWhenEmpty,
    z
      .string()
      .default("1d")
      .transform((text, ctx) => {
        if (text === "off") return null;
        const ms = everyMs(text);
        if (ms < 60_000 || ms > 30 * 86_400_000) {
          ctx.addIssue({
            code: "custom",
            message: `"${text}" is not off or a duration such as 12h or 1d (from 1m to 30d)`,
          });
          return z.NEVER;
        }
        return ms;
      }),
  ),
  /** Where uploaded files are kept without S3 or PostgreSQL, relative to the working directory. */
  UPLOADS_DIR: z.string().min(1).default("data/uploads"),
  /** Rate limits shared by every instance through Redis (else PostgreSQL, else this process). */
  REDIS_URL: z.preprocess(
    unsetWhenEmpty,
    z
      .string()
      .regex(/^rediss?:\/\/\S+$/, "must be redis://… or rediss://…")
      .optional(),
  ),
  /** Put before every rate-limit key in Redis, so deployments (or test runs) can share one Redis. */
  REDIS_KEY_PREFIX: z.preprocess(
    unsetWhenEmpty,
    z
      .string()
      .regex(/^[\w.:-]{1,64}$/, "must be up to 64 letters, digits, _ . : or -")
      .default("herald:"),
  ),
  /** Uploads in S3-compatible storage: the bucket turns it on; the rest as the provider needs. */
  S3_BUCKET: z.preprocess(
    unsetWhenEmpty,
    z
      .string()
      .regex(
        /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/,
        "must be an S3 bucket name: 3–63 lower-case letters, digits, dots and hyphens",
      )
      .optional(),
  ),
  S3_REGION: z.preprocess(unsetWhenEmpty, z.string().min(1).default("us-east-1")),
  /** The store's address when it is not AWS (MinIO, R2, s3rver…): http(s)://host[:port] */
  S3_ENDPOINT: z.preprocess(
    unsetWhenEmpty,
    z.url({ protocol: /^https?$/, error: "must be an http:// or https:// URL" }).optional(),
  ),
  /** Both or neither: without them the AWS SDK's own chain (instance role, ~/.aws…) is used. */
  S3_ACCESS_KEY_ID: z.preprocess(unsetWhenEmpty, z.string().optional()),
  S3_SECRET_ACCESS_KEY: z.preprocess(unsetWhenEmpty, z.string().optional()),
  /** "true" for stores that want bucket-in-path URLs (MinIO, s3rver, most non-AWS services) */
  S3_FORCE_PATH_STYLE: z.preprocess(unsetWhenEmpty, z.enum(["true", "false"]).default("false")),
  /** Scheduled snapshots (server/backups/schedule.ts): the directory turns them on. */
  BACKUP_DIR: z.preprocess(unsetWhenEmpty, z.string().optional()),
  /** How often, in milliseconds once read (e.g. 6h, 30m, 1d; default 1d when BACKUP_DIR is set). */
  BACKUP_EVERY: backupEvery,
  /** How many of the newest snapshots in BACKUP_DIR to keep; older ones are deleted. */
  BACKUP_KEEP: z.preprocess(
    unsetWhenEmpty,
    z.coerce
      .number({ error: "must be a whole number from 1 to 1000" })
      .int("must be a whole number from 1 to 1000")
      .min(1, "must be a whole number from 1 to 1000")
      .max(1000, "must be a whole number from 1 to 1000")
      .optional(),
  ),
  /**
   * "true": archive imports (images) and bookmark cards (pages) may fetch from loopback and
   * private addresses (tests, an intranet Ghost); off by default, so neither can make the server
   * reach inside (SSRF).
   */
  IMPORT_ALLOW_PRIVATE_HOSTS: z.preprocess(
    unsetWhenEmpty,
    z.enum(["true", "false"]).default("false"),
  ),
  /** Set by the test and bench harnesses: the anonymous page cache can be turned off to measure raw rendering. */
  PAGE_CACHE: z.enum(["on", "off"]).default("on"),
  /** MiB of rendered pages the page cache keeps at most (server/http/page-cache.ts); unset: 48. */
  PAGE_CACHE_MB: z.preprocess(
    unsetWhenEmpty,
    z.coerce.number().int().min(1).max(16_384).optional(),
  ),
  /** Worker threads for CPU-heavy steps (server/cpu/pool.ts); default: cores − 1, at least 1. */
  CPU_THREADS: z.preprocess(unsetWhenEmpty, z.coerce.number().int().min(1).max(64).optional()),
  /** How long one CPU task may run before it is stopped (ms); default 60 s. */
  CPU_TASK_TIMEOUT_MS: z.preprocess(
    unsetWhenEmpty,
    z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  ),
  /** The heap one CPU task's thread may use (MB); default 512. */
  CPU_TASK_MEMORY_MB: z.preprocess(
    unsetWhenEmpty,
    z.coerce.number().int().min(32).max(16_384).default(512),
  ),
});

export type Env = Omit<z.infer<typeof envSchema>, "BACKUP_EVERY" | "BACKUP_KEEP"> & {
  APP_URL: string;
  BOUNCE_DOMAIN: string;
  /** milliseconds between scheduled backups (1 day unless BACKUP_EVERY says otherwise) */
  BACKUP_EVERY: number;
  BACKUP_KEEP: number;
};

export const DEFAULT_BACKUP_EVERY_MS = 86_400_000;
export const DEFAULT_BACKUP_KEEP = 7;

let cached: Env | undefined;

/** Settings that only mean something together: a half-given S3 setup is refused, not ignored. */
function crossFieldProblems(env: z.infer<typeof envSchema>): string[] {
  const problems: string[] = [];
  const s3Given = (["S3_ENDPOINT", "S3_ACCESS_KEY_ID", "S3_SECRET_ACCESS_KEY"] as const).filter(
    (name) => env[name] !== undefined,
  );
  if (!env.S3_BUCKET && s3Given.length > 0) {
    problems.push(
      `S3_BUCKET: must be set when ${s3Given.join(", ")} ${s3Given.length > 1 ? "are" : "is"}`,
    );
  }
  if (env.METRICS_PORT !== undefined && env.METRICS_TOKEN === undefined) {
    problems.push("METRICS_PORT: set METRICS_TOKEN too (the scraper's bearer token)");
  }
  if ((env.S3_ACCESS_KEY_ID === undefined) !== (env.S3_SECRET_ACCESS_KEY === undefined)) {
    problems.push("S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY: give both or neither");
  }
  const backupGiven = (["BACKUP_EVERY", "BACKUP_KEEP"] as const).filter(
    (name) => env[name] !== undefined,
  );
  if (!env.BACKUP_DIR && backupGiven.length > 0) {
    problems.push(
      `BACKUP_DIR: must be set when ${backupGiven.join(", ")} ${backupGiven.length > 1 ? "are" : "is"} (scheduled backups need a directory)`,
    );
  }
  return problems;
}

/** Validates a set of variables and fills the defaults that depend on others; the problems otherwise. */
export function parseEnv(
  variables: Record<string, string | undefined>,
): { ok: true; env: Env } | { ok: false; problems: string[] } {
  const parsed = envSchema.safeParse(variables);
  if (!parsed.success) {
    return {
      ok: false,
      problems: parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`),
    };
  }
  const problems = crossFieldProblems(parsed.data);
  if (problems.length > 0) return { ok: false, problems };
  const appUrl = parsed.data.APP_URL ?? `http://localhost:${parsed.data.PORT}`;
  return {
    ok: true,
    env: {
      ...parsed.data,
      APP_URL: appUrl,
      BACKUP_EVERY: parsed.data.BACKUP_EVERY ?? DEFAULT_BACKUP_EVERY_MS,
      BACKUP_KEEP: parsed.data.BACKUP_KEEP ?? DEFAULT_BACKUP_KEEP,
      BOUNCE_DOMAIN: (parsed.data.BOUNCE_DOMAIN ?? new URL(appUrl).hostname).toLowerCase(),
    },
  };
}

/** Parses process.env once; on failure prints every bad variable and exits. */
export function getEnv(): Env {
  if (cached) return cached;
  const result = parseEnv(process.env);
  if (!result.ok) {
    console.error(`Invalid environment:\n${result.problems.map((line) => `  ${line}`).join("\n")}`);
    process.exit(1);
  }
  cached = result.env;
  return cached;
}

/** TRUST_PROXY as Express takes it: hops as a number, true/false, or the list of addresses. */
export function trustProxySetting(value: string): number | boolean | string[] {
  if (/^\d+$/.test(value)) return Number(value);
  if (value === "true" || value === "false") return value === "true";
  return value.split(",").map((part) => part.trim());
}
