import { fileStoreFor, readFile } from "../../../server/files/store";
import { scopeOf } from "../../../server/http/context";
import type { Route } from "./+types/uploads";

/** GET /uploads/{tenant}/{name}: a stored file, cached for good (its name never changes). */
export async function loader({ params, context }: Route.LoaderArgs) {
  const file = await readFile(fileStoreFor(scopeOf(context).db), params["*"] ?? "");
  if (!file)
    return new Response("Not found", { status: 404, headers: { "Content-Type": "text/plain" } });
  return new Response(new Uint8Array(file.bytes), {
    headers: {
      "Content-Type": file.contentType,
      "Content-Length": String(file.bytes.length),
      "Cache-Control": "public, max-age=31536000, immutable",
      "X-Content-Type-Options": "nosniff",
      // Newsletter images are shown in mail clients and feed readers on other origins.
      "Cross-Origin-Resource-Policy": "cross-origin",
    },
  });
}
