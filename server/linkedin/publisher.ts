import type { Db } from "../db";
import { type Env, getEnv } from "../env";
import { publicOrigin } from "../http/origin";
import type { Logger } from "../logger";
import { getNewsletter } from "../newsletters/listing";
import { getTenant } from "../tenants/store";
import { LinkedInApi, LinkedInError } from "./api";
import { authorAndToken, markConnectionProblem } from "./connections";
import { linkedInPostContent } from "./content";
import { postErrorMessage } from "./messages";
import {
  type ClaimedPost,
  claimDuePosts,
  postLater,
  recordFailed,
  recordImage,
  recordPosted,
  recordPostStarted,
} from "./posts";

/*
 * The LinkedIn publisher (docs/decisions/046-linkedin.md), one round of it per round of the
 * sending worker (server/campaigns/worker.ts calls it; it knows nothing of the worker). A due post
 * is claimed, its image uploaded (Images API) and its URN recorded, the idempotency marker
 * `post_started_at` written, then the Posts API called and the post's URN recorded. A post
 * whose marker is set but has no URN (a crash or a lost answer after the call) is looked for
 * among the author's posts by its image URN before it is posted again: exactly one post.
 */

export interface PublisherDeps {
  db: Db;
  logger: Logger;
  /** the claiming worker's id */
  worker: string;
  env?: Env;
}

/** Waits before a retryable failure is tried again: 1 min, 5 min, 30 min, then it fails. */
const RETRY_DELAYS_MS = [60_000, 300_000, 1_800_000];
const NOT_CONNECTED_WAIT_MS = 5 * 60_000;

export async function runLinkedInPosts(deps: PublisherDeps, now = new Date()): Promise<number> {
  const env = deps.env ?? getEnv();
  const stale = new Date(now.getTime() - env.LINKEDIN_STALE_MS);
  const claimed = await claimDuePosts(deps.db, deps.worker, now, stale);
  for (const post of claimed) {
    try {
      await publish(deps, env, post);
    } catch (error) {
      await handleFailure(deps, post, error);
    }
  }
  return claimed.length;
}

async function publish(deps: PublisherDeps, env: Env, post: ClaimedPost): Promise<void> {
  const { db, worker } = deps;
  const tenant = (await getTenant(db, post.tenantId)).config;
  const newsletter = await getNewsletter({ db, tenantId: post.tenantId }, post.newsletterId);
  if (newsletter?.status !== "published") {
    // Beside a scheduled publication: the post waits for it (or for staff to withdraw it).
    const at = Math.max(Date.now() + 60_000, Date.parse(newsletter?.scheduledAt ?? "") || 0);
    await postLater(db, post, worker, new Date(at), null);
    return;
  }
  const connection = await authorAndToken(db, post.tenantId, env);
  if (!connection) {
    await postLater(
      db,
      post,
      worker,
      new Date(Date.now() + NOT_CONNECTED_WAIT_MS),
      "Waiting for LinkedIn to be connected on the LinkedIn page.",
    );
    return;
  }
  const api = new LinkedInApi(env);
  const { author, accessToken } = connection;
  // As a page: only while the connected member administers it (issue 44, finding 9).
  if (author.startsWith("urn:li:organization:") && !(await api.administers(accessToken, author))) {
    throw new LinkedInError(
      "forbidden",
      `The connected member does not administer ${author} (organizationAcls).`,
      403,
    );
  }
  // Asked for before (a crash, a lost answer): did it go out?
  if (post.postStartedAt && post.imageUrn) {
    const found = await api.findPostWithImage(accessToken, author, post.imageUrn);
    if (found) {
      await recordPosted(db, post, worker, found);
      deps.logger.info(
        { tenantId: post.tenantId, postUrn: found },
        "linkedin post found after a retry",
      );
      return;
    }
  }
  const content = await linkedInPostContent(
    { db, tenantId: post.tenantId, tenant, origin: publicOrigin(tenant, env) },
    post.newsletterId,
  );
  if (!content) throw new Error("newsletter not published");
  let imageUrn = post.imageUrn;
  if (!imageUrn) {
    const upload = await api.initializeUpload(accessToken, author);
    await api.uploadImage(accessToken, upload.uploadUrl, content.image.png, "image/png");
    // Recorded once the bytes are up: a crash before leaves an unused image on LinkedIn, no post.
    if (!(await recordImage(db, post, worker, upload.image))) return;
    imageUrn = upload.image;
  }
  if (!(await recordPostStarted(db, { ...post, imageUrn }, worker))) return;
  let postUrn: string;
  try {
    postUrn = await api.createPost(accessToken, {
      author,
      commentary: content.commentary,
      imageUrn,
      altText: content.image.altText,
    });
  } catch (error) {
    // A duplicate may be our own post whose answer was lost: look for it before refusing.
    if (error instanceof LinkedInError && error.kind === "duplicate") {
      const found = await api.findPostWithImage(accessToken, author, imageUrn);
      if (found) {
        await recordPosted(db, post, worker, found);
        return;
      }
    }
    throw error;
  }
  await recordPosted(db, post, worker, postUrn);
  deps.logger.info({ tenantId: post.tenantId, postUrn }, "newsletter posted to linkedin");
}

async function handleFailure(deps: PublisherDeps, post: ClaimedPost, error: unknown) {
  const { db, worker, logger } = deps;
  if (!(error instanceof LinkedInError)) {
    // Ours, or the database's: tried again later, and logged for whoever runs Herald.
    logger.error({ err: error, tenantId: post.tenantId, postId: post.id }, "linkedin post failed");
    const wait = RETRY_DELAYS_MS[Math.min(post.attempts, RETRY_DELAYS_MS.length) - 1] ?? 60_000;
    await postLater(
      db,
      post,
      worker,
      new Date(Date.now() + wait),
      "Herald could not post it; it tries again.",
    ).catch(() => undefined);
    return;
  }
  logger.warn(
    { tenantId: post.tenantId, postId: post.id, status: error.status, code: error.code },
    `linkedin refused the post: ${error.message}`,
  );
  if (error.kind === "expired-token") {
    await markConnectionProblem(db, post.tenantId, postErrorMessage(error, null));
  }
  const retryable = error.kind === "rate-limit" || error.kind === "unavailable";
  if (retryable && post.attempts <= RETRY_DELAYS_MS.length) {
    const wait =
      error.retryAfter !== null
        ? error.retryAfter * 1000
        : (RETRY_DELAYS_MS[post.attempts - 1] ?? 60_000);
    const at = new Date(Date.now() + wait);
    await postLater(db, post, worker, at, postErrorMessage(error, at));
    return;
  }
  await recordFailed(db, post, worker, postErrorMessage(error, null));
}
