import { z } from "zod";

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
  /** Where uploaded files are kept (DESIGN.md §5), relative to the working directory. */
  UPLOADS_DIR: z.string().min(1).default("data/uploads"),
  /** Set by the test and bench harnesses: the anonymous page cache can be turned off to measure raw rendering. */
  PAGE_CACHE: z.enum(["on", "off"]).default("on"),
});

export type Env = z.infer<typeof envSchema> & { APP_URL: string };

let cached: Env | undefined;

/** Parses process.env once; on failure prints every bad variable and exits. */
export function getEnv(): Env {
  if (cached) return cached;
  const parsed = envSchema.safeParse(process.env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => `  ${issue.path.join(".")}: ${issue.message}`);
    console.error(`Invalid environment:\n${lines.join("\n")}`);
    process.exit(1);
  }
  cached = {
    ...parsed.data,
    APP_URL: parsed.data.APP_URL ?? `http://localhost:${parsed.data.PORT}`,
  };
  return cached;
}
