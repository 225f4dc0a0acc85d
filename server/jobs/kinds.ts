import { z } from "zod";
import type { RetryPolicy } from "./definition";
import type { QueuedKind } from "./store";

/*
 * The kinds of job other modules queue, without their handlers (server/jobs/catalog.ts adds
 * those): a module that queues a job need not import what runs it.
 */

/** An import runs again only for a fault of its own worker (its row records its own failures). */
const IMPORT_RETRY: RetryPolicy = { attempts: 3, delayMs: 5_000, factor: 4, maxDelayMs: 300_000 };

const importPayload = z.object({ importId: z.number().int().positive() });
export type ImportPayload = z.infer<typeof importPayload>;

/** A CSV import or MailerLite move (`subscriber_imports`), run by its own row's rules. */
export const AUDIENCE_IMPORT: QueuedKind<ImportPayload> = {
  kind: "audience-import",
  payload: importPayload,
  retry: IMPORT_RETRY,
};

/** A Ghost or Substack archive (`archive_imports`). */
export const ARCHIVE_IMPORT: QueuedKind<ImportPayload> = {
  kind: "archive-import",
  payload: importPayload,
  retry: IMPORT_RETRY,
};
