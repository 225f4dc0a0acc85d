// The loader and action of subscriber-imports.tsx.
import { data, redirect } from "react-router";
import { requireTenantAccess } from "../../../server/auth/guards";
import { decodeSourceUploadOffThread } from "../../../server/cpu/tasks";
import { requestContext, scopeOf } from "../../../server/http/context";
import { providerNameFor } from "../../../server/providers/choice";
import { ImportFileError } from "../../../server/subscribers/import-rows";
import { FILE_SOURCES } from "../../../server/subscribers/import-sources";
import {
  queueImport,
  queueMailerLiteMove,
  recentImports,
} from "../../../server/subscribers/imports";
import { MAX_IMPORT_LABEL } from "../../../shared/schemas/subscribers";
import { z } from "../../../shared/zod";
import type { Route } from "./+types/subscriber-imports";

/**
 * /admin/subscribers/imports — upload a file (a Herald CSV, Ghost's members CSV, Substack's email
 * list or export zip); for a tenant on MailerLite, a super admin may move its audience to Herald's
 * sending. The latest imports with their state.
 */
export async function loader({ context }: Route.LoaderArgs) {
  const user = requireTenantAccess(context);
  const scope = scopeOf(context);
  return {
    imports: await recentImports(scope),
    // Only who may change the tenant's provider (the tenant manager) may move it off MailerLite.
    canMoveFromMailerLite: user.isSuperAdmin && providerNameFor(scope.tenant) === "mailerlite",
  };
}

const UNREADABLE = `The upload could not be read. Choose a CSV file of at most ${MAX_IMPORT_LABEL} and try again.`;

const sourceSchema = z.enum(FILE_SOURCES);

/**
 * POST (multipart, fields `source` and `file`): checks the file, queues it, and opens its progress
 * page. POST with `intent=move-from-mailerlite`: queues (or resumes) the MailerLite move.
 */
export async function action({ request, context }: Route.ActionArgs) {
  const user = requireTenantAccess(context);
  const scope = scopeOf(context);
  const fail = (message: string) => data({ message }, { status: 400 });
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    return fail(UNREADABLE);
  }
  let id: number;
  if (form.get("intent") === "move-from-mailerlite") {
    if (!user.isSuperAdmin) {
      throw data({ message: "Only super admins may do this." }, { status: 403 });
    }
    try {
      id = await queueMailerLiteMove(scope, user.email);
    } catch (error) {
      if (error instanceof ImportFileError) return fail(error.message);
      throw error;
    }
    context.get(requestContext).logger.info({ importId: id }, "MailerLite move queued");
  } else {
    const source = sourceSchema.safeParse(form.get("source") ?? "herald");
    if (!source.success) return fail("Choose where the file comes from.");
    const file = form.get("file");
    if (!(file instanceof File) || file.size === 0) return fail("Choose a CSV file to import.");
    try {
      const bytes = new Uint8Array(await file.arrayBuffer());
      const text = await decodeSourceUploadOffThread(source.data, bytes);
      id = await queueImport(scope, user.email, file.name || "upload.csv", text, source.data);
    } catch (error) {
      if (error instanceof ImportFileError) return fail(error.message);
      throw error;
    }
    context.get(requestContext).logger.info({ importId: id }, "subscriber import queued");
  }
  scope.importer?.poke();
  throw redirect(`/admin/subscribers/imports/${id}`, 303);
}
