/**
 * The `herald` command: `npm run herald -- <command>`.
 *   migrate   bring the database (DATABASE_URL) up to date and seed the default tenants
 */
import { createDb } from "../server/db";
import { migrateToLatest } from "../server/db/migrate";
import { getEnv } from "../server/env";
import { seedTenants } from "../server/tenants/seed";

const USAGE = `Usage: npm run herald -- <command>

Commands:
  migrate    apply pending database migrations and seed the default tenants
  help       show this text`;

async function main(argv: string[]): Promise<number> {
  const [command] = argv;
  switch (command) {
    case "migrate": {
      const env = getEnv();
      const db = createDb(env.DATABASE_URL);
      try {
        const applied = await migrateToLatest(db);
        await seedTenants(db);
        console.log(applied.length ? `Applied: ${applied.join(", ")}` : "Database is up to date.");
      } finally {
        await db.destroy();
      }
      return 0;
    }
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
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  },
);
