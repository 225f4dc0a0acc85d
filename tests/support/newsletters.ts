import type { Db } from "../../server/db";
import { createNewsletter } from "../../server/newsletters/editing";
import { publishNewsletter } from "../../server/newsletters/newsletters";

/** A published newsletter of `tenantId`, written by Herald's own editing and publishing: its id. */
export async function publishedNewsletter(
  db: Db,
  tenantId: string,
  fields: { title: string; excerpt: string; content?: string },
): Promise<string> {
  const scope = { db, tenantId, authorId: null };
  const { id } = await createNewsletter(scope, { content: "<p>Hello</p>", readTime: 1, ...fields });
  await publishNewsletter(scope, id);
  return id;
}
