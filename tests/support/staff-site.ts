import type { DialectName } from "../../server/db";
import { migrateToLatest } from "../../server/db/migrate";
import { seedTenants } from "../../server/tenants/seed";
import { createStaffUser, signIn } from "./auth";
import { createTestDatabase, type TestDatabase } from "./database";
import { type RunningServer, startServer } from "./server";
import { type SmtpSink, startSmtpSink } from "./smtp-sink";

/**
 * Herald as the staff pages' tests need it: a fresh database with both tenants, a real SMTP sink,
 * the server (sending as fast as it can), and three signed-in staff members — an editor of the
 * main tenant, an editor of the other tenant, and a super admin.
 */
export interface StaffSite {
  database: TestDatabase;
  sink: SmtpSink;
  server: RunningServer;
  editor: string;
  otherTenant: string;
  superAdmin: string;
  stop(): Promise<void>;
}

export async function startStaffSite(dialect: DialectName, secret: string): Promise<StaffSite> {
  const database = await createTestDatabase(dialect);
  await migrateToLatest(database.db);
  await seedTenants(database.db);
  const sink = await startSmtpSink();
  const server = await startServer({
    databaseUrl: database.url,
    env: { SMTP_URL: sink.url, SESSION_SECRET: secret, SEND_RATE: "0" },
  });
  const staff = async (
    email: string,
    extra: Omit<Parameters<typeof createStaffUser>[1], "email">,
  ) => signIn(server.url, (await createStaffUser(database.db, { email, ...extra })).email);
  return {
    database,
    sink,
    server,
    editor: await staff("editor@example.com", { products: { main: true } }),
    otherTenant: await staff("kd@example.com", { products: { keydiscovery: true } }),
    superAdmin: await staff("chief@example.com", { role: "super_admin" }),
    async stop() {
      await server.stop();
      await sink.stop();
      await database.drop();
    },
  };
}
