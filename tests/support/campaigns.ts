import { type ChildProcess, spawn } from "node:child_process";
import { pino } from "pino";
import { afterAll, afterEach, beforeAll } from "vitest";
import { getCampaignRow } from "../../server/campaigns/campaign-row";
import { CampaignWorker } from "../../server/campaigns/worker";
import type { Db, DialectName } from "../../server/db";
import { migrateToLatest } from "../../server/db/migrate";
import { smtpTransport, type Transport } from "../../server/mail/transport";
import { listTenantLists } from "../../server/subscribers/lists";
import type { SubscriptionContext } from "../../server/subscribers/subscribers";
import { seedTenants } from "../../server/tenants/seed";
import { getTenant } from "../../server/tenants/store";
import { createTestDatabase, type TestDatabase } from "./database";
import { type SmtpSink, startSmtpSink } from "./smtp-sink";
import { insertSubscriber } from "./subscribers";
import { scaled } from "./timing";

/** The session secret the sending engine's tests sign links with. */
export const SECRET = "campaign-secret-campaign-secret-0123456789";
const silent = pino({ level: "silent" });

/** Subscribers of main: `count` active ones spread over two overlapping lists, plus some who must not get mail. */
export async function seedAudience(db: Db, count: number, prefix: string) {
  const lists = await listTenantLists(db, (await getTenant(db, "main")).config);
  const byKey = (key: string) => {
    const list = lists.find((candidate) => candidate.key === key);
    if (!list) throw new Error(`no list ${key}`);
    return list.id;
  };
  const newsletter = byKey("newsletter");
  const industry = byKey("industry-news");
  const updates = byKey("product-updates");
  const add = (
    email: string,
    status: "active" | "unsubscribed" | "unconfirmed",
    listIds: number[],
  ) => insertSubscriber(db, { email, status, listIds });
  const expected: string[] = [];
  for (let index = 0; index < count; index++) {
    const email = `${prefix}-${index}@example.com`;
    // a third on the newsletter only, a third on industry news only, a third on both
    const on =
      index % 3 === 0 ? [newsletter] : index % 3 === 1 ? [industry] : [newsletter, industry];
    await add(email, "active", on);
    expected.push(email);
  }
  await add(`${prefix}-gone@example.com`, "unsubscribed", [newsletter, industry]);
  await add(`${prefix}-unconfirmed@example.com`, "unconfirmed", [newsletter]);
  await add(`${prefix}-other-list@example.com`, "active", [updates]);
  return { expected: expected.sort(), lists: ["newsletter", String(industry)] };
}

/** Polls the campaign until it has one of `statuses`, for `timeoutMs` of a quiet machine. */
export async function waitForStatus(db: Db, id: string, statuses: string[], timeoutMs = 20_000) {
  const deadline = Date.now() + scaled(timeoutMs);
  while (Date.now() < deadline) {
    const row = await getCampaignRow(db, "main", id);
    if (statuses.includes(row.status)) return row;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`campaign ${id} did not reach ${statuses.join("/")} in ${scaled(timeoutMs)} ms`);
}

export const recipientsOf = (sink: SmtpSink, prefix: string) =>
  sink.messages.flatMap((mail) => mail.to).filter((to) => to.startsWith(`${prefix}-`));

/**
 * A migrated database, an SMTP sink and in-process workers for one describe block of the sending
 * engine's tests; its fields are set by the beforeAll hook useSendingEngine registers.
 */
export class SendingEngine {
  database!: TestDatabase;
  sink!: SmtpSink;
  ctx!: SubscriptionContext;
  transport: Transport | undefined;
  /** child processes a test started: killed after it */
  readonly children: ChildProcess[] = [];
  private readonly workers: CampaignWorker[] = [];

  /** Starts an in-process worker (on another database handle if given), stopped after the test. */
  worker(env: { SEND_RATE: number; SEND_CONCURRENCY: number }, db = this.database.db) {
    const started = new CampaignWorker({
      db,
      transport: this.transport as Transport,
      logger: silent,
      env: { APP_URL: "http://localhost:3000", ...env },
      sessionSecret: SECRET,
    }).start();
    this.workers.push(started);
    return started;
  }

  /** `herald worker` as its own process on this engine's database and sink, killed after the test. */
  workerProcess(): ChildProcess {
    const child = startWorkerProcess({
      databaseUrl: this.database.url,
      smtpUrl: this.sink.url,
      sessionSecret: SECRET,
    });
    this.children.push(child);
    return child;
  }

  /** Stops the workers started so far. */
  async stopWorkers(): Promise<void> {
    await Promise.all(this.workers.splice(0).map((each) => each.stop()));
  }
}

/** Registers the hooks that set up and tear down a sending engine for the tests of a describe. */
export function useSendingEngine(dialect: DialectName): SendingEngine {
  const engine = new SendingEngine();

  beforeAll(async () => {
    engine.database = await createTestDatabase(dialect);
    await migrateToLatest(engine.database.db);
    await seedTenants(engine.database.db);
    engine.sink = await startSmtpSink();
    engine.transport = smtpTransport(engine.sink.url, 8);
    engine.ctx = {
      db: engine.database.db,
      logger: silent,
      transport: engine.transport,
      tenant: (await getTenant(engine.database.db, "main")).config,
      origin: "http://localhost:3000",
      sessionSecret: SECRET,
    };
  });

  afterEach(async () => {
    await engine.stopWorkers();
    for (const child of engine.children.splice(0)) child.kill("SIGKILL");
    engine.sink.answer = () => undefined;
  });

  afterAll(async () => {
    engine.transport?.close();
    await engine.sink?.stop();
    await engine.database?.drop();
  });

  return engine;
}

/**
 * `herald worker` as its own process, sending from `databaseUrl` to `smtpUrl` at 150 messages a
 * second, four at a time: node itself with tsx's loader, not the tsx wrapper, so that SIGKILL hits
 * the sending process (the wrapper would die and leave its node child sending on, orphaned).
 */
export function startWorkerProcess(options: {
  databaseUrl: string;
  smtpUrl: string;
  sessionSecret: string;
  /** more of the environment (LinkedIn's, say) */
  env?: Record<string, string>;
}): ChildProcess {
  return spawn(process.execPath, ["--import", "tsx", "cli/herald.ts", "worker"], {
    env: {
      ...process.env,
      DATABASE_URL: options.databaseUrl,
      SMTP_URL: options.smtpUrl,
      SEND_RATE: "150",
      SEND_CONCURRENCY: "4",
      SESSION_SECRET: options.sessionSecret,
      LOG_LEVEL: "warn",
      DOMAIN_CHECK_EVERY: "off",
      ...options.env,
    },
    stdio: "ignore",
  });
}
