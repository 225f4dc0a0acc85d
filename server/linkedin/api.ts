import { z } from "zod";
import type { Env } from "../env";

/*
 * LinkedIn's APIs as Herald uses them (docs/decisions/046-linkedin.md): the OAuth 2.0 token
 * endpoint (LINKEDIN_AUTH_BASE, /oauth/v2/accessToken), OpenID userinfo (/v2/userinfo) and the
 * versioned REST API (/rest/images, /rest/posts) with the headers LinkedIn requires on each call:
 * `LinkedIn-Version: YYYYMM` and `X-Restli-Protocol-Version: 2.0.0`. Every answer is checked with
 * zod; a refusal becomes a LinkedInError with LinkedIn's own status, code and message. The access
 * token goes only to LinkedIn: its hosts, or the configured bases (issue 44, finding 9).
 */

export type LinkedInEnv = Pick<
  Env,
  | "LINKEDIN_CLIENT_ID"
  | "LINKEDIN_CLIENT_SECRET"
  | "LINKEDIN_AUTH_BASE"
  | "LINKEDIN_API_BASE"
  | "LINKEDIN_VERSION"
>;

/** What went wrong, as the publisher and the pages need to tell it apart. */
export type LinkedInErrorKind =
  | "expired-token"
  | "rate-limit"
  | "duplicate"
  | "forbidden"
  | "refused"
  | "unavailable";

export class LinkedInError extends Error {
  override name = "LinkedInError";
  constructor(
    readonly kind: LinkedInErrorKind,
    message: string,
    readonly status: number,
    /** LinkedIn's `code` (e.g. EXPIRED_ACCESS_TOKEN, DUPLICATE_POST) or OAuth's `error` */
    readonly code: string | null = null,
    /** seconds, from Retry-After on a 429 */
    readonly retryAfter: number | null = null,
  ) {
    super(message);
  }
}

const errorBody = z
  .object({
    status: z.number().optional(),
    serviceErrorCode: z.number().optional(),
    code: z.string().optional(),
    message: z.string().optional(),
    error: z.string().optional(),
    error_description: z.string().optional(),
  })
  .loose();

const tokenBody = z.object({
  access_token: z.string().min(1),
  expires_in: z.number().int().positive(),
  refresh_token: z.string().min(1).optional(),
  refresh_token_expires_in: z.number().int().positive().optional(),
  scope: z.string().default(""),
});
export type TokenAnswer = z.infer<typeof tokenBody>;

const userInfoBody = z.object({ sub: z.string().min(1), name: z.string().default("") }).loose();
const uploadBody = z.object({
  value: z.object({ uploadUrl: z.url(), image: z.string().startsWith("urn:li:image:") }),
});
const postsPage = z.object({
  elements: z.array(
    z
      .object({
        id: z.string(),
        author: z.string(),
        content: z
          .object({ media: z.object({ id: z.string() }).loose().optional() })
          .loose()
          .optional(),
      })
      .loose(),
  ),
});

const organizationAclsPage = z.object({
  elements: z.array(
    z
      .object({
        role: z.string(),
        state: z.string(),
        // `organization` in the versioned API; `organizationalTarget` in the older v2 one.
        organization: z.string().optional(),
        organizationalTarget: z.string().optional(),
      })
      .loose(),
  ),
});
const ACLS_PAGE = 100;

/** The time any one call may take before it counts as LinkedIn being unavailable. */
const CALL_TIMEOUT_MS = 30_000;

function classify(status: number, body: z.infer<typeof errorBody>): LinkedInErrorKind {
  const text = `${body.code ?? ""} ${body.message ?? ""}`;
  if (status === 401) return "expired-token";
  if (status === 429) return "rate-limit";
  if ((status === 422 || status === 409) && /duplicate/i.test(text)) return "duplicate";
  if (status === 403) return "forbidden";
  return status >= 500 ? "unavailable" : "refused";
}

async function failure(response: Response): Promise<LinkedInError> {
  const parsed = errorBody.safeParse(await response.json().catch(() => ({})));
  const body = parsed.success ? parsed.data : {};
  const kind = classify(response.status, body);
  const message = body.message ?? body.error_description ?? `LinkedIn answered ${response.status}`;
  const retryAfter = Number(response.headers.get("retry-after"));
  return new LinkedInError(
    kind,
    message,
    response.status,
    body.code ?? body.error ?? null,
    Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null,
  );
}

async function call(url: string, init: RequestInit): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url, { ...init, signal: AbortSignal.timeout(CALL_TIMEOUT_MS) });
  } catch (error) {
    throw new LinkedInError("unavailable", `LinkedIn could not be reached (${String(error)})`, 0);
  }
  if (!response.ok) throw await failure(response);
  return response;
}

export class LinkedInApi {
  constructor(private readonly env: LinkedInEnv) {}

  get configured(): boolean {
    return Boolean(this.env.LINKEDIN_CLIENT_ID && this.env.LINKEDIN_CLIENT_SECRET);
  }

  /** Where the staff member's browser goes to let Herald post (the 3-legged flow's first leg). */
  authorizationUrl(options: { redirectUri: string; state: string; scope: string }): string {
    const url = new URL("/oauth/v2/authorization", this.env.LINKEDIN_AUTH_BASE);
    url.search = new URLSearchParams({
      response_type: "code",
      client_id: this.env.LINKEDIN_CLIENT_ID ?? "",
      redirect_uri: options.redirectUri,
      state: options.state,
      scope: options.scope,
    }).toString();
    return url.toString();
  }

  /** The code LinkedIn sent back, exchanged for tokens. */
  exchangeCode(code: string, redirectUri: string): Promise<TokenAnswer> {
    return this.token({ grant_type: "authorization_code", code, redirect_uri: redirectUri });
  }

  refresh(refreshToken: string): Promise<TokenAnswer> {
    return this.token({ grant_type: "refresh_token", refresh_token: refreshToken });
  }

  private async token(form: Record<string, string>): Promise<TokenAnswer> {
    const response = await call(
      new URL("/oauth/v2/accessToken", this.env.LINKEDIN_AUTH_BASE).href,
      {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          ...form,
          client_id: this.env.LINKEDIN_CLIENT_ID ?? "",
          client_secret: this.env.LINKEDIN_CLIENT_SECRET ?? "",
        }),
      },
    );
    return tokenBody.parse(await response.json());
  }

  /** The signed-in member (OpenID Connect userinfo): their id (urn:li:person:{sub}) and name. */
  async userInfo(accessToken: string): Promise<{ urn: string; name: string }> {
    const response = await call(new URL("/v2/userinfo", this.env.LINKEDIN_API_BASE).href, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    const body = userInfoBody.parse(await response.json());
    return { urn: `urn:li:person:${body.sub}`, name: body.name };
  }

  private rest(path: string, accessToken: string, init: RequestInit = {}): Promise<Response> {
    return call(new URL(`/rest/${path}`, this.env.LINKEDIN_API_BASE).href, {
      ...init,
      headers: {
        authorization: `Bearer ${accessToken}`,
        "linkedin-version": this.env.LINKEDIN_VERSION,
        "x-restli-protocol-version": "2.0.0",
        ...(init.body ? { "content-type": "application/json" } : {}),
        ...(init.headers as Record<string, string> | undefined),
      },
    });
  }

  /** Images API, step 1: an upload URL and the image's URN, owned by the post's author. */
  async initializeUpload(accessToken: string, owner: string) {
    const response = await this.rest("images?action=initializeUpload", accessToken, {
      method: "POST",
      body: JSON.stringify({ initializeUploadRequest: { owner } }),
    });
    return uploadBody.parse(await response.json()).value;
  }

  /**
   * Whether `url` is LinkedIn's: https on linkedin.com or one of its subdomains, or the origin of
   * LINKEDIN_API_BASE or LINKEDIN_AUTH_BASE (where tests put their fake).
   */
  isLinkedInUrl(url: string): boolean {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return false;
    }
    const configured = [this.env.LINKEDIN_API_BASE, this.env.LINKEDIN_AUTH_BASE].map(
      (base) => new URL(base).origin,
    );
    if (configured.includes(parsed.origin)) return true;
    const host = parsed.hostname.toLowerCase();
    return (
      parsed.protocol === "https:" &&
      !parsed.username &&
      !parsed.password &&
      (host === "linkedin.com" || host.endsWith(".linkedin.com"))
    );
  }

  /**
   * Images API, step 2: the bytes PUT to the upload URL — with the access token, so only when the
   * URL is LinkedIn's (a compromised or impersonated API answer must not collect the token).
   */
  async uploadImage(accessToken: string, uploadUrl: string, bytes: Buffer, contentType: string) {
    if (!this.isLinkedInUrl(uploadUrl)) {
      const host = URL.canParse(uploadUrl) ? new URL(uploadUrl).host : "not an address";
      throw new LinkedInError(
        "refused",
        `LinkedIn's upload address is not on LinkedIn (${host}): the access token was not sent there.`,
        0,
      );
    }
    await call(uploadUrl, {
      method: "PUT",
      headers: { authorization: `Bearer ${accessToken}`, "content-type": contentType },
      body: new Uint8Array(bytes),
    });
  }

  /**
   * Organization Access Control by role (GET /rest/organizationAcls?q=roleAssignee): whether the
   * token's member is an approved ADMINISTRATOR of `organizationUrn`, read page by page.
   */
  async administers(accessToken: string, organizationUrn: string): Promise<boolean> {
    for (let start = 0; ; start += ACLS_PAGE) {
      const query = new URLSearchParams({
        q: "roleAssignee",
        role: "ADMINISTRATOR",
        state: "APPROVED",
        start: String(start),
        count: String(ACLS_PAGE),
      });
      const response = await this.rest(`organizationAcls?${query}`, accessToken);
      const page = organizationAclsPage.parse(await response.json());
      const found = page.elements.some(
        (acl) =>
          acl.role === "ADMINISTRATOR" &&
          acl.state === "APPROVED" &&
          (acl.organization ?? acl.organizationalTarget) === organizationUrn,
      );
      if (found) return true;
      if (page.elements.length < ACLS_PAGE || start >= 10 * ACLS_PAGE) return false;
    }
  }

  /** Posts API: a post with one image; answers the post's URN (the x-restli-id header). */
  async createPost(
    accessToken: string,
    post: { author: string; commentary: string; imageUrn: string; altText: string },
  ): Promise<string> {
    const response = await this.rest("posts", accessToken, {
      method: "POST",
      body: JSON.stringify({
        author: post.author,
        commentary: escapeLittleText(post.commentary),
        visibility: "PUBLIC",
        distribution: {
          feedDistribution: "MAIN_FEED",
          targetEntities: [],
          thirdPartyDistributionChannels: [],
        },
        content: { media: { id: post.imageUrn, altText: post.altText.slice(0, 4086) } },
        lifecycleState: "PUBLISHED",
        isReshareDisabledByAuthor: false,
      }),
    });
    const urn = response.headers.get("x-restli-id");
    if (!urn)
      throw new LinkedInError("unavailable", "LinkedIn created no post id", response.status);
    return urn;
  }

  /**
   * Posts API, "find posts by author": the author's latest posts, to learn whether a post asked
   * for before a crash went out. Answers the URN of the one showing `imageUrn`, or null.
   */
  async findPostWithImage(accessToken: string, author: string, imageUrn: string) {
    const query = new URLSearchParams({
      author,
      q: "author",
      count: "50",
      sortBy: "LAST_MODIFIED",
    });
    const response = await this.rest(`posts?${query}`, accessToken, {
      headers: { "x-restli-method": "FINDER" },
    });
    const page = postsPage.parse(await response.json());
    return page.elements.find((post) => post.content?.media?.id === imageUrn)?.id ?? null;
  }
}

/**
 * Commentary is LinkedIn's "little text" format, whose reserved characters must be escaped with a
 * backslash, or LinkedIn cuts the text at the first one (Posts API, "commentary").
 */
export function escapeLittleText(text: string): string {
  return text.replace(/[|{}@[\]()<>#\\*_~]/g, (char) => `\\${char}`);
}
