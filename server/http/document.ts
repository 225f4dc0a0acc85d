/**
 * A rendered document travels from app/entry.server.tsx to the host as the bytes React wrote,
 * beside its Response rather than inside it: a Response body is a web stream, and wrapping the
 * bytes in one only for the host to read them back out cost about a tenth of a render (measured).
 * The Response still carries the status and headers through React Router.
 */
const documentBodies = new WeakMap<Response, Buffer>();

export function documentResponse(body: Buffer, init: ResponseInit): Response {
  const response = new Response(null, init);
  documentBodies.set(response, body);
  return response;
}

/** A response's body: a rendered document's own, or any other response's, read as bytes. */
export async function responseBody(response: Response): Promise<Buffer> {
  return documentBodies.get(response) ?? Buffer.from(await response.arrayBuffer());
}
