import { data } from "react-router";
import { requireTenantAccess } from "../../../server/auth/guards";
import { requestContext, scopeOf } from "../../../server/http/context";
import {
  countByList,
  countByStatus,
  decodeCsvUpload,
  feedbackSummary,
  ImportFileError,
  type ImportReport,
  importSubscribersCsv,
  listSubscribers,
  subscriberFilterFrom,
} from "../../../server/subscribers/admin";
import type { Route } from "./+types/subscribers";

export async function loader({ request, context }: Route.LoaderArgs) {
  requireTenantAccess(context, request);
  const ctx = scopeOf(context);
  const filter = subscriberFilterFrom(new URL(request.url).searchParams);
  const [lists, statuses, subscribers, feedback] = await Promise.all([
    countByList(ctx),
    countByStatus(ctx),
    listSubscribers(ctx, filter, filter.page),
    feedbackSummary(ctx),
  ]);
  return {
    lists,
    statuses,
    subscribers,
    feedback,
  };
}

export type ImportAnswer =
  | { ok: true; fileName: string; report: ImportReport }
  | { ok: false; message: string };

const UNREADABLE = "The upload could not be read. Choose a CSV file of at most 1 MB and try again.";

/** POST (multipart, field `file`): imports subscribers from CSV and answers the report. */
export async function action({ request, context }: Route.ActionArgs) {
  requireTenantAccess(context, request);
  const ctx = scopeOf(context);
  const fail = (message: string, status = 400) =>
    data<ImportAnswer>({ ok: false, message }, { status });
  let file: FormDataEntryValue | null;
  try {
    file = (await request.formData()).get("file");
  } catch {
    return fail(UNREADABLE);
  }
  if (!(file instanceof File) || file.size === 0) return fail("Choose a CSV file to import.");
  try {
    const report = await importSubscribersCsv(
      ctx,
      decodeCsvUpload(new Uint8Array(await file.arrayBuffer())),
    );
    context
      .get(requestContext)
      .logger.info(
        { imported: report.imported, refused: report.refused.length },
        "subscribers imported",
      );
    return data<ImportAnswer>({ ok: true, fileName: file.name, report });
  } catch (error) {
    if (error instanceof ImportFileError) return fail(error.message);
    throw error;
  }
}
