import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { crossTenant } from "../../server/db/tenant-guard";
import { requestPost } from "../../server/linkedin/posts";
import { SECRET, startWorkerProcess, useSendingEngine } from "../support/campaigns";
import { testDialects } from "../support/database";
import { type FakeLinkedIn, startFakeLinkedIn } from "../support/fake-linkedin";
import {
  connectDirectly,
  linkedInEnv,
  publishedNewsletterTitled,
  waitForPost,
} from "../support/linkedin";

// Issue 36, target 2, done when: "a post reaches the fake LinkedIn server exactly once with its
// image, across a worker crash". The worker is `herald worker` as its own process, killed with
// SIGKILL in the window between LinkedIn creating the post and Herald recording its URN.
describe.each(testDialects())("LinkedIn posts across a worker crash on %s", (dialect) => {
  const engine = useSendingEngine(dialect);
  let fake: FakeLinkedIn;

  beforeAll(async () => {
    fake = await startFakeLinkedIn();
    await connectDirectly(engine.database.db, fake, "main");
  });
  afterAll(async () => {
    await fake?.stop();
  });

  const worker = () => {
    const child = startWorkerProcess({
      databaseUrl: engine.database.url,
      smtpUrl: engine.sink.url,
      sessionSecret: SECRET,
      // A silent worker's post is taken up again after 1.5 s (default: 2 minutes).
      env: { ...linkedInEnv(fake), LINKEDIN_STALE_MS: "1500" },
    });
    engine.children.push(child);
    return child;
  };

  it("posts exactly once, with its image, when the worker dies after LinkedIn created the post", async () => {
    const db = engine.database.db;
    const newsletterId = await publishedNewsletterTitled(db, "main", "Crash window");
    await requestPost({ db, tenantId: "main" }, { newsletterId, dueAt: new Date(), actor: "t" });
    fake.holdNextPost = true;
    const held = fake.heldPost();
    const first = worker();
    const created = await held;
    // LinkedIn has the post; Herald has not heard back. Kill the worker now.
    first.kill("SIGKILL");
    await new Promise((resolve) => first.once("exit", resolve));
    const atCrash = await crossTenant(db)
      .selectFrom("linkedin_posts")
      .selectAll()
      .where("newsletter_id", "=", newsletterId)
      .executeTakeFirstOrThrow();
    expect(atCrash).toMatchObject({ state: "uploading", post_urn: null });
    expect(atCrash.image_urn).toBe(created.imageUrn);
    expect(atCrash.post_started_at).not.toBeNull();

    worker();
    const done = await waitForPost(db, newsletterId, (row) => row.state === "posted");
    expect(fake.posts).toHaveLength(1);
    expect(done.post_urn).toBe(created.id);
    expect(done.error).toBeNull();
    // It asked LinkedIn (find posts by author) instead of posting again.
    expect(fake.requests.some((r) => r.method === "GET" && r.path.startsWith("/rest/posts?"))).toBe(
      true,
    );
    // The image went with it: uploaded bytes, the social pack's 1200×627 link image as a PNG.
    const image = fake.images.get(created.imageUrn);
    expect(image?.status).toBe("AVAILABLE");
    expect(image?.contentType).toBe("image/png");
    expect(image?.bytes?.readUInt32BE(16)).toBe(1200);
    expect(image?.bytes?.readUInt32BE(20)).toBe(627);
    expect(created.commentary).toContain("Crash window");
    // LinkedIn's little text: reserved characters escaped.
    expect(created.commentary).toContain("\\(brackets\\) and \\#tags");
  });

  it("posts once when the worker dies after the image upload, before the post", async () => {
    const db = engine.database.db;
    const before = fake.posts.length;
    const newsletterId = await publishedNewsletterTitled(db, "main", "Killed before posting");
    // LinkedIn answers the first post with 503, so the image is uploaded and recorded, no post made.
    fake.inject({
      method: "POST",
      path: "/rest/posts",
      status: 503,
      body: { status: 503, message: "Service Unavailable" },
    });
    await requestPost({ db, tenantId: "main" }, { newsletterId, dueAt: new Date(), actor: "t" });
    const first = worker();
    const waiting = await waitForPost(
      db,
      newsletterId,
      (row) => row.state === "scheduled" && row.error !== null,
    );
    first.kill("SIGKILL");
    await new Promise((resolve) => first.once("exit", resolve));
    expect(waiting.error).toMatch(
      /LinkedIn could not be reached or failed\. Herald tries again at/,
    );
    // The retry is due in a minute; bring it forward as staff pressing "Post again" would.
    await crossTenant(db)
      .updateTable("linkedin_posts")
      .set({ due_at: new Date().toISOString() })
      .where("newsletter_id", "=", newsletterId)
      .execute();
    worker();
    const done = await waitForPost(db, newsletterId, (row) => row.state === "posted");
    expect(fake.posts.length - before).toBe(1);
    expect(done.post_urn).toBe(fake.posts.at(-1)?.id);
  });
});
