/** Form fields urlencoded as a browser sends them: a list's values under one repeated name. */
export function formBody(fields: Record<string, string | string[]>): URLSearchParams {
  const body = new URLSearchParams();
  for (const [name, value] of Object.entries(fields))
    for (const item of Array.isArray(value) ? value : [value]) body.append(name, item);
  return body;
}

/** A form post as a browser sends it: urlencoded fields (repeated names for lists), same origin. */
export function postForm(
  baseUrl: string,
  path: string,
  fields: Record<string, string | string[]>,
  cookie: string,
): Promise<Response> {
  return fetch(`${baseUrl}${path}`, {
    method: "POST",
    body: formBody(fields),
    headers: { cookie, origin: baseUrl },
    redirect: "manual",
  });
}

/**
 * "Send as email" as staff do it (issue 16, point 7): "Review and send", then "Send to N
 * recipients" with the count and the lists the review showed. Any other answer to the review (an
 * error) is returned as it came.
 */
export async function sendAsEmail(
  baseUrl: string,
  path: string,
  fields: Record<string, string | string[]>,
  cookie: string,
): Promise<Response> {
  const review = await postForm(baseUrl, path, { ...fields, intent: "review" }, cookie);
  if (review.status !== 200) return review;
  const html = await review.text();
  const recipients = /name="confirmedRecipients" value="(\d+)"/.exec(html)?.[1];
  const audience = /name="confirmedAudience" value="([^"]*)"/.exec(html)?.[1];
  if (recipients === undefined || audience === undefined) {
    return new Response(html, { status: review.status, headers: review.headers });
  }
  return postForm(
    baseUrl,
    path,
    { ...fields, intent: "create", confirmedRecipients: recipients, confirmedAudience: audience },
    cookie,
  );
}
