/** A form post as a browser sends it: urlencoded fields (repeated names for lists), same origin. */
export function postForm(
  baseUrl: string,
  path: string,
  fields: Record<string, string | string[]>,
  cookie: string,
): Promise<Response> {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields))
    for (const item of Array.isArray(value) ? value : [value]) body.append(name, item);
  return fetch(`${baseUrl}${path}`, {
    method: "POST",
    body,
    headers: { cookie, origin: baseUrl },
    redirect: "manual",
  });
}
