import type { TenantChange } from "../../server/tenants/history";
import type { TenantView } from "../../server/tenants/views";

/** The SPEC §8 error envelope. */
export interface ApiErrorBody {
  status: string;
  message: string;
  fields?: Record<string, string[]>;
}

/** The union of what the tenant API and GET /api/auth/verify answer; each test reads its part. */
export interface ApiBody {
  error?: ApiErrorBody;
  tenant?: TenantView;
  tenants?: { id: string; name: string; domain: string | null; description: string }[];
  deleted?: string;
  removed?: Record<string, number>;
  default?: string;
  groups?: { id: string; key: string; name: string; description: string }[];
  isAdmin?: boolean;
  user?: { id: string; email: string; role: string };
  via?: string;
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  contentType: string;
  /** the parsed JSON body, or {} when the body was not JSON */
  body: ApiBody;
  text: string;
}

export interface ApiCallOptions {
  method?: string;
  /** serialised as JSON */
  json?: unknown;
  /** sent as it is, with content-type application/json */
  raw?: string;
  cookie?: string;
  /** the x-auth-token header */
  token?: string;
  headers?: Record<string, string>;
}

/** One call to a JSON API route of the real server, as a script (no Origin header) makes it. */
export async function callApi(
  baseUrl: string,
  path: string,
  options: ApiCallOptions = {},
): Promise<ApiResponse> {
  const headers: Record<string, string> = { accept: "application/json", ...options.headers };
  if (options.cookie) headers.cookie = options.cookie;
  if (options.token !== undefined) headers["x-auth-token"] = options.token;
  let body: string | undefined;
  if (options.raw !== undefined) body = options.raw;
  else if (options.json !== undefined) body = JSON.stringify(options.json);
  if (body !== undefined) headers["content-type"] ??= "application/json";
  const response = await fetch(`${baseUrl}${path}`, {
    method: options.method ?? "GET",
    headers,
    body,
    redirect: "manual",
  });
  const text = await response.text();
  const contentType = response.headers.get("content-type") ?? "";
  let parsed: ApiBody = {};
  if (contentType.includes("json")) {
    try {
      parsed = JSON.parse(text) as ApiBody;
    } catch {
      parsed = {};
    }
  }
  return { status: response.status, headers: response.headers, contentType, body: parsed, text };
}

/** The session token inside a `herald_session=…` Cookie header value. */
export function sessionTokenOf(cookie: string): string {
  const token = cookie.slice(cookie.indexOf("=") + 1);
  if (!token) throw new Error(`no session token in ${cookie}`);
  return token;
}

/** The `--brand-primary` CSS variable of a server-rendered page's `<html style>`. */
export function brandPrimaryOf(html: string): string | null {
  const style = html.match(/<html[^>]*\sstyle="([^"]*)"/)?.[1] ?? "";
  return style.match(/--brand-primary:\s*([^;"]+)/)?.[1]?.trim() ?? null;
}

export type { TenantChange, TenantView };
