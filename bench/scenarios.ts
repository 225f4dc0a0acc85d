/**
 * What the benchmarks load, seeded through the server's own functions straight into a running
 * server's database: a signed-in super admin, the ~1,500-word newsletter page with 50 comments,
 * and an archive of 1,000 published newsletters. Used by bench/http.ts and bench/compare.ts.
 */
import { createSession, SESSION_COOKIE } from "../server/auth/sessions";
import { createUser } from "../server/auth/users";
import { createDb } from "../server/db";
import { addComment } from "../server/newsletters/comments";
import { createNewsletter } from "../server/newsletters/editing";
import { publishNewsletter } from "../server/newsletters/newsletters";
import type { ServerHandle } from "./lib";

/** What a scenario's requests are expected to have written, compared after the run. */
export interface CountCheck {
  /** e.g. "views" */
  what: string;
  counted: number;
  /** 2xx responses of the scenario: warm-up, probe and run */
  expected: number;
  ok: boolean;
}

/** A scenario's path on the running server, after seeding what it needs. */
export interface PreparedScenario {
  path: string;
  /** e.g. a signed-in session's cookie */
  headers?: Record<string, string>;
  /** Set when each 2xx response writes: the run is a fixed number of requests, then this compares. */
  check?: (answered: number) => Promise<CountCheck>;
  close?: () => Promise<void>;
}

// ---------------------------------------------------------------------------------------------
// Signed-in staff: a super admin and a session, made through the server's own functions

const sessions = new WeakMap<ServerHandle, Promise<string>>();

/** The Cookie header of a super admin's session on this server (made once per server). */
export function staffCookie(server: ServerHandle): Promise<string> {
  let cookie = sessions.get(server);
  if (!cookie) {
    cookie = (async () => {
      const db = createDb(server.databaseUrl);
      try {
        const user = await createUser(db, {
          email: `bench-staff-${server.port}@example.com`,
          password: "a long bench passphrase, never used to sign in",
          role: "super_admin",
        });
        const session = await createSession(db, user.id);
        return `${SESSION_COOKIE}=${session.token}`;
      } finally {
        await db.destroy();
      }
    })();
    sessions.set(server, cookie);
  }
  return cookie;
}

export function signedIn(path: string) {
  return async (server: ServerHandle): Promise<PreparedScenario> => ({
    path,
    headers: { cookie: await staffCookie(server) },
  });
}

// ---------------------------------------------------------------------------------------------
// The newsletter page: about 1,500 words and 50 comments, each load counting a view

const SENTENCES = [
  "Discovery teams that negotiate the ESI protocol early spend less on review and fight fewer motions about scope.",
  "Technology-assisted review keeps winning acceptance when the producing party explains how it measured recall.",
  "Short-message data from chat platforms now appears in most requests for production, and it rarely fits the old custodian model.",
  "A defensible workflow is documented before the first document is coded, not reconstructed after a challenge.",
  "General counsel want fewer surprises, which means budgets that track the matter and not the vendor's invoice.",
  "Privilege logs built with generative summaries save hours, but every entry still needs a human who can stand behind it.",
  "The best litigation-support managers treat validation as a routine report, the way finance treats reconciliation.",
  "Information governance is cheaper than collection: what was never kept never has to be reviewed.",
];

/** Deterministic newsletter HTML of about `words` words: paragraphs, headings, a list, a quote, links. */
export function benchArticle(words: number): string {
  const parts: string[] = [];
  let count = 0;
  let index = 0;
  while (count < words) {
    if (index % 5 === 4)
      parts.push(`<h2>Part ${Math.ceil(index / 5)}: what changed this week</h2>`);
    if (index % 9 === 8) {
      parts.push(
        '<ul><li>Ask for the validation report.</li><li>Write down the sampling method.</li><li>Read the <a href="https://example.com/guide">practitioner guide</a>.</li></ul>',
      );
    }
    if (index % 11 === 10) {
      parts.push("<blockquote><p>Defensibility is a process, not a product.</p></blockquote>");
    }
    const paragraph = [0, 1, 2, 3]
      .map((offset) => SENTENCES[(index + offset * 3) % SENTENCES.length] ?? "")
      .join(" ");
    parts.push(`<p>${paragraph.replace("recall", "<strong>recall</strong>")}</p>`);
    count += paragraph.split(/\s+/).length;
    index += 1;
  }
  return parts.join("\n");
}

// ---------------------------------------------------------------------------------------------
// The archive and a tag page with 1,000 published newsletters (issue 15)

const ARCHIVE_TAGS = [
  { slug: "ediscovery", name: "eDiscovery" },
  { slug: "ai-review", name: "AI review" },
  { slug: "privilege", name: "Privilege" },
  { slug: "governance", name: "Governance" },
  { slug: "case-law", name: "Case law" },
];
const archivesSeeded = new WeakMap<ServerHandle, Promise<void>>();

/** 1,000 published newsletters of ~300 words, two tags each, over three years (once per server). */
export function seedArchive(path: string) {
  return async (server: ServerHandle): Promise<PreparedScenario> => {
    let seeded = archivesSeeded.get(server);
    seeded ??= (async () => {
      const db = createDb(server.databaseUrl);
      const ctx = { db, tenantId: "main" };
      try {
        for (let i = 0; i < 1_000; i++) {
          const newsletter = await createNewsletter(
            { ...ctx, authorId: null },
            {
              title: `Archive issue ${i + 1}: what changed in review this week`,
              excerpt: "Three developments worth your attention and one practical takeaway.",
              content: benchArticle(300),
              tags: [ARCHIVE_TAGS[i % 5], ARCHIVE_TAGS[(i + 2) % 5]].filter(
                (tag) => tag !== undefined,
              ),
            },
          );
          await publishNewsletter(ctx, newsletter.id);
        }
      } finally {
        await db.destroy();
      }
    })();
    archivesSeeded.set(server, seeded);
    await seeded;
    return { path };
  };
}

/** Seeds the newsletter through the server's own functions, straight into the bench database. */
export async function seedNewsletterPage(server: ServerHandle): Promise<PreparedScenario> {
  const db = createDb(server.databaseUrl);
  const ctx = { db, tenantId: "main" };
  const newsletter = await createNewsletter(
    { ...ctx, authorId: null },
    {
      title: "The protocol is the bottleneck: what eDiscovery teams learned this year",
      excerpt: "Why the ESI protocol, not the review tool, decides the cost of discovery.",
      content: benchArticle(1_500),
      readTime: 7,
    },
  );
  await publishNewsletter(ctx, newsletter.id);
  for (let i = 0; i < 50; i++) {
    const text =
      i % 3 === 0
        ? `Comment ${i}: this matches what we saw on our last two matters.\nThe validation point is the one I will take to our next meet-and-confer.`
        : `Comment ${i}: useful summary, thank you. We are rolling out the same checklist for our review vendors this quarter.`;
    const outcome = await addComment(ctx, { newsletterId: newsletter.id, text });
    if (outcome.status !== "added") throw new Error(`seeding comment ${i}: ${outcome.status}`);
  }
  return {
    path: `/newsletter/${newsletter.slug}`,
    async check(answered) {
      const row = await db
        .selectFrom("newsletters")
        .select("views")
        .where("tenant_id", "=", "main")
        .where("id", "=", newsletter.id)
        .executeTakeFirstOrThrow();
      const counted = Number(row.views);
      return { what: "views", counted, expected: answered, ok: counted === answered };
    },
    close: () => db.destroy(),
  };
}

/**
 * The rendered pages two builds are compared on (`bench:compare`, `bench:instructions`): the home
 * page, the newsletter page with 1,500 words and 50 comments, the dashboard signed in with 1,000
 * newsletters. Each prepares a fresh server's database and names its path.
 */
export const RENDERED_PAGES: Record<string, (server: ServerHandle) => Promise<PreparedScenario>> = {
  home: async () => ({ path: "/" }),
  newsletter: seedNewsletterPage,
  dashboard: async (server) => {
    await seedArchive("/newsletter")(server);
    return signedIn("/admin/dashboard")(server);
  },
};
