import { z } from "zod";

/** A DNS name (letters, digits, hyphens; dot-separated labels) such as bounces.example.com. */
const DOMAIN_NAME =
  /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/i;

/** An empty variable (`BOUNCE_SMTP_PORT=`) counts as unset. */
const unsetWhenEmpty = (value: unknown) => (value === "" ? undefined : value);

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
  SMTP_URL: z.string().optional(),
  MAIL_PROVIDER: z.enum(["builtin", "mailerlite"]).default("builtin"),
  MAILERLITE_API_KEY: z.string().optional(),
  MAILERLITE_BASE_URL: z.url().optional(),
  /** the secret of the MailerLite webhook that calls /api/webhooks/mailerlite */
  MAILERLITE_WEBHOOK_SECRET: z.string().min(1).optional(),
  ADMIN_EMAIL: z.string().optional(),
  ADMIN_PASSWORD: z.string().optional(),
  SEND_RATE: z.coerce.number().min(0).default(50),
  SEND_CONCURRENCY: z.coerce.number().int().min(1).default(4),
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
  /** Where uploaded files are kept (DESIGN.md §5), relative to the working directory. */
  UPLOADS_DIR: z.string().min(1).default("data/uploads"),
  /** Set by the test and bench harnesses: the anonymous page cache can be turned off to measure raw rendering. */
  PAGE_CACHE: z.enum(["on", "off"]).default("on"),
});

export type Env = z.infer<typeof envSchema> & { APP_URL: string; BOUNCE_DOMAIN: string };

let cached: Env | undefined;

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
  const appUrl = parsed.data.APP_URL ?? `http://localhost:${parsed.data.PORT}`;
  return {
    ok: true,
    env: {
      ...parsed.data,
      APP_URL: appUrl,
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
