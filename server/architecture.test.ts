import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/*
 * Issue 13, point 3: no import cycle anywhere in app/, server/ and shared/ — no module imports,
 * directly or through others, a module that imports it. Type-only imports are left out: they are
 * erased at build time and cannot make a cycle at run time. Dynamic import() counts.
 */

const root = path.resolve(import.meta.dirname, "..");
const EXTENSIONS = ["", ".ts", ".tsx", "/index.ts", "/index.tsx"];

function sourceFiles(): string[] {
  return ["app", "server", "shared"].flatMap((dir) =>
    readdirSync(path.join(root, dir), { recursive: true, encoding: "utf8" })
      .filter(
        (file) => /\.tsx?$/.test(file) && !/\.test\.tsx?$/.test(file) && !file.includes("+types"),
      )
      .map((file) => path.join(dir, file)),
  );
}

/** The modules a file imports at run time (relative and `~/` specifiers). */
function importsOf(file: string, known: Set<string>): string[] {
  const source = readFileSync(path.join(root, file), "utf8");
  const specifiers: string[] = [];
  const fromClause = /^\s*(?:import|export)\s+(?!type\b)([\s\S]*?)\s+from\s+["']([^"']+)["']/gm;
  for (const [, clause = "", specifier = ""] of source.matchAll(fromClause)) {
    const names = clause.trim().startsWith("{")
      ? clause.replace(/[{}\s]/g, "").split(",")
      : [clause];
    // `import { type A, type B }` imports nothing at run time.
    if (names.filter(Boolean).every((name) => name.startsWith("type"))) continue;
    specifiers.push(specifier);
  }
  for (const [, specifier = ""] of source.matchAll(/^\s*import\s+["']([^"']+)["']/gm)) {
    specifiers.push(specifier);
  }
  for (const [, specifier = ""] of source.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)) {
    specifiers.push(specifier);
  }
  return specifiers.flatMap((specifier) => {
    const base = specifier.startsWith("~/")
      ? path.join("app", specifier.slice(2))
      : specifier.startsWith(".")
        ? path.join(path.dirname(file), specifier)
        : null;
    if (base === null) return [];
    const found = EXTENSIONS.map((extension) => path.normalize(base + extension)).find(
      (candidate) => known.has(candidate),
    );
    return found ? [found] : [];
  });
}

/** Every cycle's modules (strongly connected components of more than one module, or a self-import). */
function cycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (node: string) => {
    index.set(node, next);
    low.set(node, next);
    next++;
    stack.push(node);
    onStack.add(node);
    for (const target of graph.get(node) ?? []) {
      if (!index.has(target)) {
        visit(target);
        low.set(node, Math.min(low.get(node) ?? 0, low.get(target) ?? 0));
      } else if (onStack.has(target)) {
        low.set(node, Math.min(low.get(node) ?? 0, index.get(target) ?? 0));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      for (let member = stack.pop(); member !== undefined; member = stack.pop()) {
        onStack.delete(member);
        component.push(member);
        if (member === node) break;
      }
      if (component.length > 1 || graph.get(node)?.includes(node)) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

describe("the module graph", () => {
  const files = sourceFiles();
  const known = new Set(files);
  const graph = new Map(files.map((file) => [file, importsOf(file, known)]));

  it("is read whole (the parser finds the imports)", () => {
    expect(files.length).toBeGreaterThan(150);
    expect(graph.get(path.join("server", "providers", "index.ts"))).toContain(
      path.join("server", "providers", "builtin.ts"),
    );
    // The check itself finds a cycle when there is one.
    expect(
      cycles(
        new Map([
          ["a", ["b"]],
          ["b", ["c"]],
          ["c", ["a"]],
          ["d", ["a"]],
        ]),
      ),
    ).toEqual([["a", "b", "c"]]);
  });

  it("has no import cycle in app/, server/ or shared/", () => {
    expect(cycles(graph)).toEqual([]);
  });

  it("keeps server/ from importing app/ (shared code lives in shared/)", () => {
    const crossing = [...graph]
      .filter(([file]) => file.startsWith(`server${path.sep}`))
      .flatMap(([file, targets]) =>
        targets
          .filter((target) => target.startsWith(`app${path.sep}`))
          .map((target) => `${file} → ${target}`),
      );
    expect(crossing).toEqual([]);
  });

  it("gives code that may run in the browser its zod from shared/zod.ts (no eval under the CSP)", () => {
    const direct = files.filter(
      (file) =>
        !file.startsWith(`server${path.sep}`) &&
        file !== path.join("shared", "zod.ts") &&
        /from\s+["']zod["']/.test(readFileSync(path.join(root, file), "utf8")),
    );
    expect(direct).toEqual([]);
  });
});

/*
 * Issue 13, point 3: each table has one module that writes it (docs/architecture.md, "Who writes
 * which table"). A new write elsewhere fails here: call the owner's function instead, or move the
 * ownership on purpose by changing this table and the document together.
 */
const TABLE_WRITERS: Record<string, string> = {
  tenants: "server/tenants/admin.ts",
  tenant_changes: "server/tenants/admin.ts",
  dkim_keys: "server/tenants/dkim.ts",
  users: "server/auth/users.ts",
  sessions: "server/auth/sessions.ts",
  api_tokens: "server/auth/api-tokens.ts",
  settings: "server/settings.ts",
  staff_tokens: "server/auth/account-links.ts",
  newsletters: "server/newsletters/newsletters.ts",
  newsletter_slugs: "server/newsletters/newsletters.ts",
  tags: "server/newsletters/tags.ts",
  newsletter_tags: "server/newsletters/tags.ts",
  newsletter_search: "server/newsletters/search.ts",
  comments: "server/newsletters/comments.ts",
  contact_messages: "server/contact/messages.ts",
  images: "server/files/images.ts",
  stored_files: "server/files/store.ts",
  lists: "server/subscribers/lists.ts",
  subscribers: "server/subscribers/store.ts",
  subscriptions: "server/subscribers/store.ts",
  preference_changes: "server/subscribers/store.ts",
  subscriber_fields: "server/subscribers/fields.ts",
  subscriber_values: "server/subscribers/fields.ts",
  subscriber_events: "server/subscribers/events.ts",
  segments: "server/subscribers/segments.ts",
  audience_counts: "server/subscribers/counts.ts",
  subscriber_imports: "server/subscribers/imports.ts",
  archive_imports: "server/newsletters/archive-imports.ts",
  unsubscribe_feedback: "server/subscribers/subscribers.ts",
  mail_log: "server/mail/send.ts",
  campaigns: "server/campaigns/campaigns.ts",
  deliveries: "server/campaigns/deliveries.ts",
  campaign_events: "server/campaigns/deliveries.ts",
  webhook_secrets: "server/providers/mailerlite-webhook.ts",
  webhook_events: "server/providers/mailerlite-webhook.ts",
};

describe("table ownership", () => {
  const writes = new Map<string, Set<string>>();
  // Migrations shape and backfill the schema itself: they are history, not owners of rows. A
  // tenant's import (docs/decisions/030-moving-a-tenant.md) copies rows the owners wrote in another
  // install into every table at once, renumbered: the one other exception, named here.
  const migrations = path.join("server", "db", "migrations");
  const tenantImport = path.join("server", "tenants", "move", "import.ts");
  for (const file of sourceFiles().filter(
    (file) => !file.startsWith(migrations) && file !== tenantImport,
  )) {
    const source = readFileSync(path.join(root, file), "utf8");
    const builder = /\b(?:insertInto|updateTable|deleteFrom)\(\s*"([a-z_]+)/g;
    const raw = /\b(?:insert\s+into|update|delete\s+from)\s+([a-z_]+)\b/gi;
    for (const [, table = ""] of source.matchAll(builder)) {
      writes.set(table, (writes.get(table) ?? new Set()).add(file));
    }
    // Raw SQL in template literals (the sender's claim); words in comments are not SQL.
    for (const literal of source.match(/sql`[^`]*`/g) ?? []) {
      for (const [, table = ""] of literal.matchAll(raw)) {
        if (table in TABLE_WRITERS) writes.set(table, (writes.get(table) ?? new Set()).add(file));
      }
    }
  }

  it("finds the writes (the scan works)", () => {
    expect(writes.get("deliveries")).toEqual(new Set(["server/campaigns/deliveries.ts"]));
    expect(writes.size).toBeGreaterThanOrEqual(15);
  });

  it("has one writer per table, the one docs/architecture.md names", () => {
    const found = Object.fromEntries(
      [...writes].map(([table, files]) => [table, [...files].sort().join(", ")]),
    );
    const expected = Object.fromEntries(
      Object.keys(found).map((table) => [table, TABLE_WRITERS[table] ?? "(no owner declared)"]),
    );
    expect(found).toEqual(expected);
  });

  it("is the table the document shows", () => {
    const doc = readFileSync(path.join(root, "docs/architecture.md"), "utf8");
    for (const [table, owner] of Object.entries(TABLE_WRITERS)) {
      const row = doc
        .split("\n")
        .find((line) => line.startsWith("|") && line.includes(`\`${table}\``));
      expect(row, `docs/architecture.md has no row for ${table}`).toBeDefined();
      expect(row).toContain(`\`${owner}\``);
    }
  });
});

/*
 * Issue 34, target 3: a request's database is bound to its tenant (server/db/tenant-guard.ts,
 * tenantDb), which adds the tenant condition itself; a tenant condition written by hand is left
 * only where the database is unbound on purpose (crossTenant: the workers' claims across tenants,
 * the tenant manager). The count may go down, never up; the issue's target is 20 or fewer.
 */
const MAX_HAND_WRITTEN_TENANT_CLAUSES = 131;

/** `.where("x.tenant_id", "=", …)`, `eb("tenant_id", "in", …)`, `.on("tenant_id", "is", …)` and the like. */
const TENANT_CLAUSE = /["'`](?:\w+\.)?tenant_id["'`],\s*["'](?:=|in|is)["']/g;

function handWrittenTenantClauses(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const file of [
    ...sourceFiles(),
    ...readdirSync(path.join(root, "cli"), { recursive: true, encoding: "utf8" })
      .filter((name) => /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name))
      .map((name) => path.join("cli", name)),
  ]) {
    const inGuardOrMigrations =
      file === path.join("server", "db", "tenant-guard.ts") ||
      file.startsWith(path.join("server", "db", "migrations"));
    if (inGuardOrMigrations) continue;
    const found = readFileSync(path.join(root, file), "utf8").match(TENANT_CLAUSE)?.length ?? 0;
    if (found > 0) counts.set(file, found);
  }
  return counts;
}

describe("hand-written tenant clauses", () => {
  const counts = handWrittenTenantClauses();
  const total = [...counts.values()].reduce((sum, n) => sum + n, 0);

  it("are found (the scan works)", () => {
    expect(counts.get(path.join("server", "import-jobs.ts"))).toBeGreaterThan(0);
  });

  it(`are at most ${MAX_HAND_WRITTEN_TENANT_CLAUSES} outside the guard and the migrations`, () => {
    const byFile = [...counts].sort(([, a], [, b]) => b - a).map(([file, n]) => `${n} ${file}`);
    expect(total, byFile.join("\n")).toBeLessThanOrEqual(MAX_HAND_WRITTEN_TENANT_CLAUSES);
  });
});
