import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

/**
 * Issue 44, target 5: `crossTenant` lifts the tenant guard, so only worker and operator modules
 * may reach it, each for the reason written here. The TypeScript syntax tree of every module of
 * server/, app/ and cli/ (tests aside) is read: a use of crossTenant — a call, an aliased or
 * namespace import, a re-export, the function passed along — outside this list fails.
 */
const CROSS_TENANT_MODULES: Readonly<Record<string, string>> = {
  "server/campaigns/ab-decision.ts": "the sender decides every tenant's due A/B tests",
  "server/campaigns/bounces.ts": "a bounce names a delivery, whose campaign says the tenant",
  "server/campaigns/deliveries.ts":
    "the sender claims, releases and enrols deliveries of all tenants",
  "server/campaigns/fair-claims.ts": "the sender shares its turns between every tenant's campaigns",
  "server/campaigns/send-delivery.ts":
    "a claimed delivery names its campaign, which names the tenant",
  "server/campaigns/tracking.ts": "a signed tracking token names a delivery, on whatever host",
  "server/campaigns/worker.ts": "the sender finds due and finished campaigns across tenants",
  "server/api/functions.ts": "binds at once the tenant a function call names (not the host's)",
  "server/db/migrate.ts": "migrations change every tenant's rows",
  "server/files/store.ts": "a file is read as the tenant its key names; backups list them all",
  "server/jobs/overview.ts": "the super admin's jobs page and /metrics count every tenant's jobs",
  "server/jobs/store.ts":
    "the job runner claims every tenant's due jobs, then binds each to its tenant",
  "server/import-jobs.ts": "the import worker finds every tenant's waiting imports",
  "server/linkedin/connections.ts": "re-sealing every tenant's tokens under a new key",
  "server/linkedin/posts.ts": "the LinkedIn worker finds every tenant's due posts",
  "server/mail/send.ts": "the retry queue of mail is every tenant's",
  "server/metrics.ts": "/metrics counts every tenant's queue",
  "server/newsletters/scheduler.ts": "the scheduler publishes and sends every tenant's due work",
  "server/newsletters/search.ts": "a search row id is unique across tenants",
  "server/providers/mailerlite-webhook.ts": "re-sealing every tenant's webhook secrets",
  "server/secrets-at-rest.ts": "the key check reads every tenant's sealed secrets",
  "server/tenants/dkim.ts": "re-sealing every tenant's DKIM keys",
  "server/tenants/domain-checks.ts": "the domain checker runs over every tenant",
  "server/tenants/move/import.ts": "a tenant import checks what the whole install already holds",
  "server/tenants/named-tenant.ts": "the routes' one door: binds a named tenant after its grant",
};

const root = path.resolve(import.meta.dirname, "..", "..");
const GUARD = "server/db/tenant-guard.ts";

function modules(): string[] {
  const files: string[] = [];
  for (const top of ["server", "app", "cli"]) {
    for (const name of readdirSync(path.join(root, top), { recursive: true, encoding: "utf8" })) {
      if (!/\.tsx?$/.test(name) || /\.test\.tsx?$/.test(name) || name.includes("+types")) continue;
      files.push(path.posix.join(top, name.split(path.sep).join("/")));
    }
  }
  return files;
}

/** The uses of crossTenant in a module's syntax tree, with their lines. */
function crossTenantUses(file: string, text: string): number[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const local = new Set<string>();
  const namespaces = new Set<string>();
  const lines: number[] = [];
  const line = (node: ts.Node) => source.getLineAndCharacterOfPosition(node.getStart()).line + 1;
  for (const statement of source.statements) {
    if (ts.isImportDeclaration(statement) && ts.isStringLiteral(statement.moduleSpecifier)) {
      if (!/(^|\/)tenant-guard$/.test(statement.moduleSpecifier.text)) continue;
      const bindings = statement.importClause?.namedBindings;
      if (bindings && ts.isNamespaceImport(bindings)) namespaces.add(bindings.name.text);
      if (bindings && ts.isNamedImports(bindings)) {
        for (const element of bindings.elements) {
          if ((element.propertyName ?? element.name).text === "crossTenant") {
            local.add(element.name.text);
          }
        }
      }
    }
    if (ts.isExportDeclaration(statement) && statement.exportClause) {
      const named = statement.exportClause;
      if (ts.isNamedExports(named)) {
        for (const element of named.elements) {
          if ((element.propertyName ?? element.name).text === "crossTenant")
            lines.push(line(element));
        }
      }
    }
  }
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) return;
    if (ts.isIdentifier(node) && local.has(node.text)) lines.push(line(node));
    if (
      ts.isPropertyAccessExpression(node) &&
      node.name.text === "crossTenant" &&
      ts.isIdentifier(node.expression) &&
      namespaces.has(node.expression.text)
    ) {
      lines.push(line(node));
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return lines;
}

describe("crossTenant's reach", () => {
  const uses = new Map<string, number[]>();
  for (const file of modules()) {
    if (file === GUARD) continue;
    const found = crossTenantUses(file, readFileSync(path.join(root, file), "utf8"));
    if (found.length > 0) uses.set(file, found);
  }

  it("finds a use however it is spelled (the scan works)", () => {
    const spellings = [
      `import { crossTenant } from "../db/tenant-guard";\ncrossTenant(db).selectFrom("x");`,
      `import { crossTenant as all } from "./db/tenant-guard";\nconst lift = all;`,
      `import * as guard from "../../server/db/tenant-guard";\nguard.crossTenant(db);`,
      `export { crossTenant } from "./tenant-guard";`,
    ];
    expect(spellings.map((text) => crossTenantUses("x.ts", text).length)).toEqual([1, 1, 1, 1]);
    expect(crossTenantUses("x.ts", `const crossTenant = 1; crossTenant;`)).toEqual([]);
    expect(uses.size).toBeGreaterThan(10);
  });

  it("is only from the modules allowed, each with its reason", () => {
    const outside = [...uses]
      .filter(([file]) => !(file in CROSS_TENANT_MODULES))
      .map(([file, lines]) => `${file}:${lines.join(",")}`);
    expect(outside, "crossTenant outside CROSS_TENANT_MODULES").toEqual([]);
    for (const reason of Object.values(CROSS_TENANT_MODULES))
      expect(reason.length).toBeGreaterThan(10);
  });

  it("lists no module that no longer uses it", () => {
    const stale = Object.keys(CROSS_TENANT_MODULES).filter((file) => !uses.has(file));
    expect(stale).toEqual([]);
  });

  it("reaches no route module", () => {
    expect([...uses.keys()].filter((file) => file.startsWith("app/"))).toEqual([]);
  });
});
