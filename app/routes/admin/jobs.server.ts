// The loader and action of jobs.tsx.
import { data } from "react-router";
import { requireSuperAdmin } from "../../../server/auth/guards";
import { scopeOf } from "../../../server/http/context";
import { countJobs, listOpenJobs, oldestWaitingAgeSeconds } from "../../../server/jobs/overview";
import { retryFailedJob } from "../../../server/jobs/store";
import { retryJobSchema } from "../../../shared/schemas/jobs";
import type { Route } from "./+types/jobs";

export async function loader({ context }: Route.LoaderArgs) {
  requireSuperAdmin(context);
  const { db } = scopeOf(context);
  const [counts, open, oldestWaitingSeconds] = await Promise.all([
    countJobs(db),
    listOpenJobs(db),
    oldestWaitingAgeSeconds(db),
  ]);
  return { counts, open, oldestWaitingSeconds };
}

export type ActionResult = { ok: boolean; message: string };

export async function action({ request, context }: Route.ActionArgs) {
  requireSuperAdmin(context);
  const { db, logger } = scopeOf(context);
  const parsed = retryJobSchema.safeParse(Object.fromEntries(await request.formData()));
  if (!parsed.success) {
    return data<ActionResult>({ ok: false, message: "No such job to retry." }, { status: 400 });
  }
  const { jobId } = parsed.data;
  if (!(await retryFailedJob(db, jobId))) {
    return data<ActionResult>(
      { ok: false, message: `Job ${jobId} has not failed (or is gone): nothing to retry.` },
      { status: 409 },
    );
  }
  logger.info({ jobId }, "failed job queued again");
  return data<ActionResult>({ ok: true, message: `Job ${jobId} is queued again.` });
}
