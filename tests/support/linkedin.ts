import type { Db } from "../../server/db";
import { crossTenant } from "../../server/db/tenant-guard";
import type { Env } from "../../server/env";
import { LinkedInApi } from "../../server/linkedin/api";
import { saveConnection } from "../../server/linkedin/connections";
import type { FakeLinkedIn } from "./fake-linkedin";
import { publishedNewsletter } from "./newsletters";
import { scaled } from "./timing";

/** The environment that points Herald's LinkedIn client at the fake. */
export const linkedInEnv = (fake: FakeLinkedIn) => ({
  LINKEDIN_CLIENT_ID: fake.clientId,
  LINKEDIN_CLIENT_SECRET: fake.clientSecret,
  LINKEDIN_AUTH_BASE: fake.url,
  LINKEDIN_API_BASE: fake.url,
  LINKEDIN_VERSION: "202510",
});

/**
 * Connects `tenantId` to the fake's member without the pages: the fake's authorization answered,
 * its code exchanged by Herald's own client, the connection saved (sealed) by Herald's writer.
 */
export async function connectDirectly(db: Db, fake: FakeLinkedIn, tenantId: string) {
  const env = linkedInEnv(fake) as unknown as Env;
  const api = new LinkedInApi(env);
  const redirectUri = "http://localhost:3000/admin/linkedin/callback";
  const authorize = await fetch(
    api.authorizationUrl({ redirectUri, state: "s", scope: "openid profile w_member_social" }),
    {
      redirect: "manual",
    },
  );
  const code = new URL(authorize.headers.get("location") ?? "").searchParams.get("code") ?? "";
  const answer = await api.exchangeCode(code, redirectUri);
  const member = await api.userInfo(answer.access_token);
  await saveConnection(db, tenantId, {
    kind: "member",
    authorUrn: member.urn,
    authorName: member.name,
    answer,
    actor: "test@example.com",
  });
  return member;
}

/** A published newsletter of `tenantId` whose excerpt has brackets and a hashtag: its id. */
export function publishedNewsletterTitled(db: Db, tenantId: string, title: string) {
  return publishedNewsletter(db, tenantId, {
    title,
    excerpt: `What ${title} is about: (brackets) and #tags`,
  });
}

/** The newsletter's linkedin_posts row once `until` holds, polled for `timeoutMs` of a quiet machine. */
export async function waitForPost(
  db: Db,
  newsletterId: string,
  until: (row: { state: string; error: string | null; post_urn: string | null }) => boolean,
  timeoutMs = 20_000,
) {
  const deadline = Date.now() + scaled(timeoutMs);
  let last: unknown;
  while (Date.now() < deadline) {
    const row = await crossTenant(db)
      .selectFrom("linkedin_posts")
      .selectAll()
      .where("newsletter_id", "=", newsletterId)
      .executeTakeFirst();
    last = row;
    if (row && until(row)) return row;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`linkedin post of ${newsletterId} did not get there: ${JSON.stringify(last)}`);
}
