// The loader and action of newsletter-imports.tsx.
import { data, redirect } from "react-router";
import { requireTenantAccess } from "../../../server/auth/guards";
import { requestContext, scopeOf } from "../../../server/http/context";
import {
  ArchiveFileError,
  queueArchiveImport,
  recentArchiveImports,
} from "../../../server/newsletters/archive-imports";
import {
  archiveImportFormSchema,
  MAX_ARCHIVE_UPLOAD_LABEL,
} from "../../../shared/schemas/archive-import";
import type { Route } from "./+types/newsletter-imports";

/** /admin/newsletter/import — upload a Ghost or Substack archive; the latest imports. */
export async function loader({ context }: Route.LoaderArgs) {
  requireTenantAccess(context);
  return { imports: await recentArchiveImports(scopeOf(context)) };
}

const UNREADABLE = `The upload could not be read. Choose a Ghost JSON export or a Substack zip of at most ${MAX_ARCHIVE_UPLOAD_LABEL} and try again.`;

/** POST (multipart: source, siteUrl, file): reads the archive, queues it, opens its progress page. */
export async function action({ request, context }: Route.ActionArgs) {
  const user = requireTenantAccess(context);
  const scope = scopeOf(context);
  const fail = (message: string, errors: Record<string, string> = {}) =>
    data({ message, errors }, { status: 400 });
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    return fail(UNREADABLE);
  }
  const fields = archiveImportFormSchema.safeParse({
    source: form.get("source") ?? undefined,
    siteUrl: typeof form.get("siteUrl") === "string" ? form.get("siteUrl") : undefined,
  });
  if (!fields.success) {
    const errors = Object.fromEntries(
      fields.error.issues.map((issue) => [String(issue.path[0]), issue.message]),
    );
    return fail("Check the form: see the fields marked below.", errors);
  }
  const file = form.get("file");
  if (!(file instanceof File) || file.size === 0) return fail("Choose the archive to import.");
  let id: number;
  try {
    id = await queueArchiveImport(scope, user.email, {
      source: fields.data.source,
      fileName: file.name || `${fields.data.source}-export`,
      bytes: new Uint8Array(await file.arrayBuffer()),
      siteUrl: fields.data.siteUrl || null,
    });
  } catch (error) {
    if (error instanceof ArchiveFileError) return fail(error.message);
    throw error;
  }
  context.get(requestContext).logger.info({ archiveImportId: id }, "archive import queued");
  scope.importer?.poke();
  throw redirect(`/admin/newsletter/import/${id}`, 303);
}
