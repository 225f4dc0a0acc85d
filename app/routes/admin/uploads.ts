import { requireTenantAccess } from "../../../server/auth/guards";
import {
  IMAGE_MISSING,
  IMAGE_TOO_LARGE,
  ImageUploadError,
  MAX_IMAGE_BYTES,
  saveImageUpload,
} from "../../../server/files/images";
import { scopeOf } from "../../../server/http/context";
import type { Route } from "./+types/uploads";

const UPLOAD_UNREADABLE = "The upload could not be read. Choose an image file and try again.";

/** POST /admin/uploads (multipart, field `file`): stores a newsletter image, answers `{ url }`. */
export async function action({ request, context }: Route.ActionArgs) {
  requireTenantAccess(context);
  const scope = scopeOf(context);
  if (request.method !== "POST") {
    return Response.json({ error: "Use POST." }, { status: 405, headers: { Allow: "POST" } });
  }
  let file: FormDataEntryValue | null;
  try {
    file = (await request.formData()).get("file");
  } catch {
    // The host cuts bodies over its limit mid-stream; anything else unreadable is a bad request.
    const tooLarge = Number(request.headers.get("content-length") ?? 0) > MAX_IMAGE_BYTES;
    return tooLarge
      ? Response.json({ error: IMAGE_TOO_LARGE }, { status: 413 })
      : Response.json({ error: UPLOAD_UNREADABLE }, { status: 400 });
  }
  if (!(file instanceof File)) return Response.json({ error: IMAGE_MISSING }, { status: 400 });
  try {
    const image = await saveImageUpload(scope, new Uint8Array(await file.arrayBuffer()));
    scope.logger.info({ url: image.url, bytes: file.size }, "image uploaded");
    return Response.json({ url: image.url, width: image.width, height: image.height });
  } catch (error) {
    if (error instanceof ImageUploadError) {
      return Response.json({ error: error.message }, { status: error.status });
    }
    scope.logger.error({ err: error }, "storing an upload failed");
    return Response.json(
      { error: "The image could not be stored. Please try again." },
      { status: 500 },
    );
  }
}

export function loader({ context }: Route.LoaderArgs) {
  requireTenantAccess(context);
  return Response.json({ error: "Use POST." }, { status: 405, headers: { Allow: "POST" } });
}
