/**
 * The `herald` command: `npm run herald -- <command>`. Works on DATABASE_URL like the server.
 */
import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { SUPER_ADMIN_ROLE } from "../server/auth/permissions";
import { clearSecondFactor } from "../server/auth/two-factor";
import {
  createUser,
  findUserByEmail,
  listUsers,
  setUserPassword,
  UserError,
} from "../server/auth/users";
import { bounceListenerFor } from "../server/campaigns/bounce-listener";
import { CampaignWorker } from "../server/campaigns/worker";
import { createDb, type Db } from "../server/db";
import { migrateToLatest } from "../server/db/migrate";
import { getEnv } from "../server/env";
import { jobDefinitions } from "../server/jobs/catalog";
import { JobRunner } from "../server/jobs/runner";
import { getLogger } from "../server/logger";
import { outboxTransport, smtpTransport } from "../server/mail/transport";
import { startMetrics } from "../server/metrics";
import { serveWorkerMetrics } from "../server/metrics-server";
import { SEND_DRAIN_MS, STOP_WITHIN_MS } from "../server/runtime";
import { getSecretBox } from "../server/secret-box";
import { loadSessionSecret } from "../server/secrets";
import { accountsWithOldRecoveryCodes, resealStoredSecrets } from "../server/secrets-at-rest";
import { seedTenants } from "../server/tenants/seed";
import { ARCHIVE_IMPORT_USAGE, archiveImportCommand } from "./archive-import";
import { backupCommand, restoreCommand } from "./backup";
import { AUDIENCE_IMPORT_USAGE, AUDIENCE_IMPORTS, audienceImportCommand } from "./import-audience";
import { TENANT_USAGE, tenantCommand } from "./tenant";

const USAGE = `Usage: npm run herald -- <command> [options]

Commands:
  migrate                       apply pending database migrations and seed the default tenants
  user add --email E --role R [--product P ...] [--password PW]
                                add a staff user; R is super_admin or editor, P a tenant id
                                (e.g. keydiscovery); without --password it is asked for
  user list                     list staff users
  user set-password --email E [--password PW]
                                set a user's password (signs them out everywhere, revokes
                                their API tokens)
  user reset-2fa --email E      clear a user's two-factor sign-in (a lost phone); signs them out
                                everywhere
  secrets rotate                re-seal every kept secret (two-factor, DKIM keys, webhook secrets)
                                under HERALD_SECRET_KEY; the key that sealed them before must be
                                in HERALD_SECRET_KEY_PREVIOUS
  backup --to DIR               write a snapshot of the database and every uploaded file into DIR
                                (new or empty), with a manifest of checksums signed under the
                                secret key, while the site runs; the key is not in it (keep
                                HERALD_SECRET_KEY elsewhere)
  restore --from DIR [--allow-unsigned]
                                bring a snapshot back into an empty database (DATABASE_URL) and an
                                empty file store; refuses one that does not match its manifest, or
                                whose manifest's signature does not check out under the key here
                                (an unsigned one, from before: only with --allow-unsigned)
  worker                        send campaigns (SEND_RATE, SEND_CONCURRENCY, SMTP_URL) and run CSV imports, until
                                stopped; several may run against one PostgreSQL; with
                                BOUNCE_SMTP_PORT also receives bounce and complaint reports; with
                                BACKUP_DIR also writes scheduled snapshots; with METRICS_PORT (and
                                METRICS_TOKEN) serves its own /metrics there
${AUDIENCE_IMPORT_USAGE}
${ARCHIVE_IMPORT_USAGE}
${TENANT_USAGE}
  help                          show this text`;

async function askPassword(): Promise<string> {
  if (!process.stdin.isTTY) {
    // Piped input: the first line is the password.
    const lines = createInterface({ input: process.stdin });
    for await (const line of lines) return line;
    return "";
  }
  const rl = createInterface({ input: process.stdin, output: process.stdout, terminal: true });
  const output = rl as unknown as { _writeToOutput: (text: string) => void };
  process.stdout.write("Password: ");
  output._writeToOutput = () => {}; // do not echo what is typed
  const password = await new Promise<string>((resolve) => rl.question("", resolve));
  rl.close();
  process.stdout.write("\n");
  return password;
}

async function withDb<T>(work: (db: Db) => Promise<T>): Promise<T> {
  const env = getEnv();
  const db = createDb(env.DATABASE_URL);
  try {
    await migrateToLatest(db);
    await seedTenants(db);
    await resealStoredSecrets(db, "plaintext");
    return await work(db);
  } finally {
    await db.destroy();
  }
}

async function userCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const { values } = parseArgs({
    args: rest,
    options: {
      email: { type: "string" },
      role: { type: "string" },
      product: { type: "string", multiple: true },
      password: { type: "string" },
    },
  });
  if (sub === "list") {
    return withDb(async (db) => {
      const users = await listUsers(db);
      if (users.length === 0) console.log("No staff users.");
      for (const user of users) {
        const products = Object.keys(user.products).join(", ") || "-";
        console.log(`${user.email}\t${user.role}\tproducts: ${products}`);
      }
      return 0;
    });
  }
  if (!values.email) {
    console.error("--email is required.");
    return 1;
  }
  const email = values.email;
  if (sub === "add") {
    const role = values.role ?? "";
    if (role !== SUPER_ADMIN_ROLE && role !== "editor") {
      console.error("--role must be super_admin or editor.");
      return 1;
    }
    const password = values.password ?? (await askPassword());
    return withDb(async (db) => {
      const products = Object.fromEntries(
        (values.product ?? []).map((key) => [key, true] as const),
      );
      const user = await createUser(db, { email, password, role, products });
      console.log(`Added ${user.email} (${user.role}).`);
      return 0;
    });
  }
  if (sub === "set-password") {
    const password = values.password ?? (await askPassword());
    return withDb(async (db) => {
      const user = await findUserByEmail(db, email);
      if (!user) {
        console.error(`No user with email ${email}.`);
        return 1;
      }
      await setUserPassword(db, user.id, password);
      console.log(`Password set for ${user.email}.`);
      return 0;
    });
  }
  if (sub === "reset-2fa") {
    return withDb(async (db) => {
      const user = await findUserByEmail(db, email);
      if (!user) {
        console.error(`No user with email ${email}.`);
        return 1;
      }
      if (!(await clearSecondFactor(db, user.id))) {
        console.error(`${user.email} has no two-factor sign-in to clear.`);
        return 1;
      }
      console.log(`Two-factor sign-in cleared for ${user.email}; signed out everywhere.`);
      return 0;
    });
  }
  console.error(`Unknown user command: ${sub ?? "(none)"}\n\n${USAGE}`);
  return 1;
}

/** `secrets rotate`: everything sealed under a previous key (or not yet sealed) sealed under the current one. */
async function secretsCommand(args: string[]): Promise<number> {
  if (args[0] !== "rotate" || args.length > 1) {
    console.error(`Unknown secrets command: ${args.join(" ") || "(none)"}\n\n${USAGE}`);
    return 1;
  }
  return withDb(async (db) => {
    const sealed = await resealStoredSecrets(db, "rotate");
    console.log(
      `Sealed under key ${getSecretBox().keyId}: ${sealed.totpSecrets} two-factor secrets, ${sealed.webhookSecrets} webhook secrets, ${sealed.dkimKeys} DKIM keys. LinkedIn connections: ${sealed.linkedInTokens}.`,
    );
    const old = await accountsWithOldRecoveryCodes(db);
    if (old > 0) {
      console.log(
        `${old} accounts keep recovery codes made under an older key: keep that key in HERALD_SECRET_KEY_PREVIOUS until they set up two-factor sign-in again, or those codes stop working.`,
      );
    }
    return 0;
  });
}

/** The sending engine on its own (DESIGN.md §6), without the web server. */
async function workerCommand(): Promise<number> {
  const env = getEnv();
  const logger = getLogger();
  const db = createDb(env.DATABASE_URL);
  await migrateToLatest(db);
  await seedTenants(db);
  await resealStoredSecrets(db, "plaintext");
  // Its own /metrics when METRICS_PORT is set (README, "Watching it run").
  if (env.METRICS_PORT && env.METRICS_TOKEN) await startMetrics(db);
  const metrics =
    env.METRICS_PORT && env.METRICS_TOKEN
      ? await serveWorkerMetrics({ port: env.METRICS_PORT, token: env.METRICS_TOKEN, logger })
      : null;
  // Campaigns only, one connection per sending slot: other mail has its own pool in the web process.
  const transport = env.SMTP_URL
    ? smtpTransport(env.SMTP_URL, env.SEND_CONCURRENCY)
    : outboxTransport();
  const sessionSecret = loadSessionSecret(env, logger);
  const worker = new CampaignWorker({ db, transport, logger, env, sessionSecret }).start();
  logger.info({ worker: worker.id }, "campaign worker started");
  // Bounce and complaint reports, when BOUNCE_SMTP_PORT is set (README, Mail).
  const bounceListener = await bounceListenerFor(env, { db, logger, sessionSecret });
  // Background jobs (server/jobs/, decision 056): imports, the purge, mail retries, the daily domain
  // checks, scheduled snapshots when BACKUP_DIR is set. Retried mail goes out on a pool of its own.
  const mailRetries = env.SMTP_URL ? smtpTransport(env.SMTP_URL, 1) : outboxTransport();
  const jobs = new JobRunner({
    db,
    logger,
    definitions: jobDefinitions({ db, logger, env, transport: mailRetries }),
  }).start();
  // The worker's own timers do not hold the process open (they must not in the web server).
  const keepAlive = setInterval(() => {}, 60_000);
  await new Promise<void>((resolve) => {
    for (const signal of ["SIGTERM", "SIGINT"] as const) process.once(signal, () => resolve());
  });
  clearInterval(keepAlive);
  // The same graceful stop as the web server's (server.js): within STOP_WITHIN_MS, come what may.
  setTimeout(() => process.exit(0), STOP_WITHIN_MS - 500).unref();
  await Promise.all([
    worker.stop(SEND_DRAIN_MS),
    bounceListener?.close(),
    metrics?.close(),
    jobs.stop(),
  ]);
  transport.close();
  mailRetries.close();
  await db.destroy();
  return 0;
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case "migrate":
      return withDb(async () => {
        console.log("Database is up to date.");
        return 0;
      });
    case "user":
      return userCommand(rest);
    case "worker":
      return workerCommand();
    case "secrets":
      return secretsCommand(rest);
    case "tenant":
      return tenantCommand(rest, withDb);
    case "backup":
    case "restore":
      return (command === "backup" ? backupCommand : restoreCommand)(rest);
    case "import":
      // Audiences (ghost-members, substack-members, mailerlite) and archives (ghost, substack).
      return AUDIENCE_IMPORTS.has(rest[0] ?? "")
        ? audienceImportCommand(rest, withDb)
        : archiveImportCommand(rest, withDb);
    case undefined:
    case "help":
    case "--help":
      console.log(USAGE);
      return command === undefined ? 1 : 0;
    default:
      console.error(`Unknown command: ${command}\n\n${USAGE}`);
      return 1;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof UserError || error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
