// The loader and action of subscriber-imports.tsx.
import { data, redirect } from "react-router";
import { requireTenantAccess } from "../../../server/auth/guards";
import { requestContext, scopeOf } from "../../../server/http/context";
import { decodeCsvUpload, ImportFileError } from "../../../server/subscribers/admin";
import { queueImport, recentImports } from "../../../server/subscribers/imports";
import { MAX_IMPORT_LABEL } from "../../../shared/schemas/subscribers";
import type { Route } from "./+types/subscriber-imports";

/** /admin/subscribers/imports — upload a CSV; the latest imports with their state. */
export async function loader({ request, context }: Route.LoaderArgs) {
  requireTenantAccess(context, request);
  return { imports: await recentImports(scopeOf(context)) };
}

const UNREADABLE = `The upload could not be read. Choose a CSV file of at most ${MAX_IMPORT_LABEL} and try again.`;

/** POST (multipart, field `file`): checks the file, queues it, and opens its progress page. */
export async function action({ request, context }: Route.ActionArgs) {
  const user = requireTenantAccess(context, request);
  const scope = scopeOf(context);
  const fail = (message: string) => data({ message }, { status: 400 });
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    return fail(UNREADABLE);
  }
  const file = form.get("file");
  if (!(file instanceof File) || file.size === 0) return fail("Choose a CSV file to import.");
  let id: number;
  try {
    const text = decodeCsvUpload(new Uint8Array(await file.arrayBuffer()));
    id = await queueImport(scope, user.email, file.name || "upload.csv", text);
  } catch (error) {
    if (error instanceof ImportFileError) return fail(error.message);
    throw error;
  }
  context.get(requestContext).logger.info({ importId: id }, "subscriber import queued");
  scope.importer?.poke();
  throw redirect(`/admin/subscribers/imports/${id}`, 303);
}
