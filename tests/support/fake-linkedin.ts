import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

/**
 * A local HTTP server that answers as LinkedIn's published API reference says, for the parts
 * Herald uses: the OAuth 2.0 authorization code flow (GET /oauth/v2/authorization redirects back
 * with `code` and `state`, or `error=user_cancelled_authorize`; POST /oauth/v2/accessToken for
 * `authorization_code` and `refresh_token`, form-encoded, client id and secret checked, codes
 * used once and bound to their redirect_uri; OAuth errors as `{error, error_description}`),
 * OpenID userinfo (GET /v2/userinfo), and the versioned REST API, which refuses any call without
 * `LinkedIn-Version: YYYYMM` and `X-Restli-Protocol-Version: 2.0.0`: the Images API
 * (POST /rest/images?action=initializeUpload → uploadUrl and urn:li:image, then PUT the bytes) and
 * the Posts API (POST /rest/posts with author, commentary, visibility, distribution,
 * lifecycleState and content.media, answered 201 with the URN in `x-restli-id`; GET /rest/posts
 * ?q=author, a FINDER), and the Organization Access Control API (GET /rest/organizationAcls
 * ?q=roleAssignee&role=ADMINISTRATOR&state=APPROVED: the signed-in member's approved roles, each
 * `{roleAssignee, role, state, organization}`, paged with start and count). REST errors are `{status, serviceErrorCode, code, message}`: 401
 * INVALID/EXPIRED_ACCESS_TOKEN, 403 ACCESS_DENIED for an author the token may not post as, 422
 * DUPLICATE_POST for the same commentary by the same author, 429 with Retry-After.
 *
 * Tests inject errors (`inject`), count posts (`posts`), and may hold the answer to the next post
 * (`holdNextPost`): the post is created, the answer never sent — a worker crashing in the window
 * between the call and recording the URN.
 */

export interface FakePost {
  id: string;
  author: string;
  commentary: string;
  visibility: string;
  imageUrn: string;
  altText: string;
  createdAt: number;
}

export interface FakeImage {
  urn: string;
  owner: string;
  status: "WAITING_UPLOAD" | "AVAILABLE";
  bytes: Buffer | null;
  contentType: string | null;
}

interface FakeToken {
  member: string;
  scope: string;
  expiresAt: number;
}

export interface Injected {
  method: string;
  /** the path without query, e.g. /rest/posts */
  path: string;
  status: number;
  body: unknown;
  headers?: Record<string, string>;
  count: number;
}

export interface FakeLinkedIn {
  /** the base of both LINKEDIN_AUTH_BASE and LINKEDIN_API_BASE */
  url: string;
  clientId: string;
  clientSecret: string;
  /** the member who authorises: their id (urn:li:person:{sub}) and name */
  member: { sub: string; name: string };
  /** organizations the member administers (urn:li:organization:{id} may be posted as) */
  organizations: Set<string>;
  /** where upload URLs point (default: the fake itself): a test's other host, as a hostile API would */
  uploadBase: string | null;
  /** what the next authorization answers: approve, or as if the member pressed Cancel */
  authorize: "approve" | "cancel";
  /** seconds: the access tokens' lifetime and the refresh tokens' (null: none given) */
  accessTtl: number;
  refreshTtl: number | null;
  accessTokens: Map<string, FakeToken>;
  refreshTokens: Map<string, FakeToken>;
  /** token requests by grant type, for assertions */
  tokenGrants: string[];
  images: Map<string, FakeImage>;
  posts: FakePost[];
  requests: { method: string; path: string; headers: IncomingMessage["headers"] }[];
  inject(error: Omit<Injected, "count"> & { count?: number }): void;
  /** create the next post, then never answer it (the connection is held until stop) */
  holdNextPost: boolean;
  /** a post was held: resolves when it is */
  heldPost(): Promise<FakePost>;
  /** every access token stops working (as when the member revokes the app) */
  revokeAll(): void;
  stop(): Promise<void>;
}

const restError = (status: number, serviceErrorCode: number, code: string, message: string) => ({
  status,
  serviceErrorCode,
  code,
  message,
});

export async function startFakeLinkedIn(): Promise<FakeLinkedIn> {
  const injected: Injected[] = [];
  let baseUrl = "";
  const held: ServerResponse[] = [];
  let onHeld: ((post: FakePost) => void) | null = null;
  let nextId = 7_100_000_000_000_000_000n;
  const codes = new Map<string, FakeToken & { redirectUri: string }>();
  const token = () => randomBytes(24).toString("base64url");
  const fake = {
    clientId: "fake-client-id",
    clientSecret: "fake-client-secret",
    member: { sub: "aBcD123xyz", name: "Jane Counsel" },
    organizations: new Set<string>(["urn:li:organization:5515715"]),
    uploadBase: null as string | null,
    authorize: "approve" as FakeLinkedIn["authorize"],
    accessTtl: 5_184_000,
    refreshTtl: 31_536_000 as number | null,
    accessTokens: new Map<string, FakeToken>(),
    refreshTokens: new Map<string, FakeToken>(),
    tokenGrants: [] as string[],
    images: new Map<string, FakeImage>(),
    posts: [] as FakePost[],
    requests: [] as FakeLinkedIn["requests"],
    holdNextPost: false,
    inject(error: Omit<Injected, "count"> & { count?: number }) {
      injected.push({ count: 1, ...error });
    },
    heldPost() {
      return new Promise<FakePost>((resolve) => {
        onHeld = resolve;
      });
    },
    revokeAll() {
      fake.accessTokens.clear();
    },
  };

  const send = (
    res: ServerResponse,
    status: number,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    res.writeHead(status, {
      ...(body === undefined ? {} : { "content-type": "application/json" }),
      ...headers,
    });
    res.end(body === undefined ? "" : JSON.stringify(body));
  };

  const denied = (res: ServerResponse, message: string) =>
    send(res, 403, restError(403, 100, "ACCESS_DENIED", message));

  const issue = (grant: FakeToken) => {
    const access = token();
    fake.accessTokens.set(access, { ...grant, expiresAt: Date.now() + fake.accessTtl * 1000 });
    const answer: Record<string, unknown> = {
      access_token: access,
      expires_in: fake.accessTtl,
      scope: grant.scope,
    };
    if (fake.refreshTtl !== null) {
      const refresh = token();
      fake.refreshTokens.set(refresh, { ...grant, expiresAt: Date.now() + fake.refreshTtl * 1000 });
      answer.refresh_token = refresh;
      answer.refresh_token_expires_in = fake.refreshTtl;
    }
    return answer;
  };

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks);
    const url = new URL(req.url ?? "/", "http://fake");
    const method = req.method ?? "GET";
    fake.requests.push({ method, path: `${url.pathname}${url.search}`, headers: req.headers });
    const at = injected.findIndex((each) => each.method === method && each.path === url.pathname);
    const hit = injected[at];
    if (hit) {
      if (--hit.count <= 0) injected.splice(at, 1);
      return send(res, hit.status, hit.body, hit.headers);
    }

    // OAuth 2.0, on www.linkedin.com
    if (url.pathname === "/oauth/v2/authorization" && method === "GET") {
      const q = url.searchParams;
      if (q.get("response_type") !== "code" || q.get("client_id") !== fake.clientId) {
        return send(res, 400, { error: "invalid_request", error_description: "Invalid client" });
      }
      const back = new URL(q.get("redirect_uri") ?? "");
      back.searchParams.set("state", q.get("state") ?? "");
      if (fake.authorize === "cancel") {
        back.searchParams.set("error", "user_cancelled_authorize");
        back.searchParams.set("error_description", "The user cancelled the authorization");
      } else {
        const code = token();
        codes.set(code, {
          member: fake.member.sub,
          scope: (q.get("scope") ?? "").split(" ").join(","),
          expiresAt: Date.now() + 30 * 60_000,
          redirectUri: q.get("redirect_uri") ?? "",
        });
        back.searchParams.set("code", code);
      }
      return send(res, 302, undefined, { location: back.toString() });
    }
    if (url.pathname === "/oauth/v2/accessToken" && method === "POST") {
      if (!String(req.headers["content-type"]).startsWith("application/x-www-form-urlencoded")) {
        return send(res, 400, { error: "invalid_request", error_description: "Content type" });
      }
      const form = new URLSearchParams(raw.toString("utf8"));
      if (
        form.get("client_id") !== fake.clientId ||
        form.get("client_secret") !== fake.clientSecret
      ) {
        return send(res, 401, {
          error: "invalid_client",
          error_description: "Client authentication failed",
        });
      }
      const grant = form.get("grant_type") ?? "";
      fake.tokenGrants.push(grant);
      if (grant === "authorization_code") {
        const code = codes.get(form.get("code") ?? "");
        codes.delete(form.get("code") ?? "");
        if (!code || code.expiresAt < Date.now() || code.redirectUri !== form.get("redirect_uri")) {
          return send(res, 400, {
            error: "invalid_request",
            error_description:
              "Unable to retrieve access token: appid/redirect uri/code verifier does not match authorization code. Or authorization code expired.",
          });
        }
        return send(res, 200, issue(code));
      }
      if (grant === "refresh_token") {
        const refresh = fake.refreshTokens.get(form.get("refresh_token") ?? "");
        if (!refresh || refresh.expiresAt < Date.now()) {
          return send(res, 400, {
            error: "invalid_request",
            error_description: "The provided refresh token is invalid or expired",
          });
        }
        const access = token();
        fake.accessTokens.set(access, {
          ...refresh,
          expiresAt: Date.now() + fake.accessTtl * 1000,
        });
        return send(res, 200, {
          access_token: access,
          expires_in: fake.accessTtl,
          refresh_token: form.get("refresh_token"),
          refresh_token_expires_in: Math.floor((refresh.expiresAt - Date.now()) / 1000),
          scope: refresh.scope,
        });
      }
      return send(res, 400, { error: "unsupported_grant_type", error_description: grant });
    }

    // api.linkedin.com: a bearer token on every call
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "";
    const grant = fake.accessTokens.get(bearer);
    if (!grant)
      return send(res, 401, restError(401, 65600, "INVALID_ACCESS_TOKEN", "Invalid access token"));
    if (grant.expiresAt < Date.now()) {
      return send(
        res,
        401,
        restError(401, 65601, "EXPIRED_ACCESS_TOKEN", "The token used in the request has expired"),
      );
    }
    if (url.pathname === "/v2/userinfo" && method === "GET") {
      const [given = "", family = ""] = fake.member.name.split(" ");
      return send(res, 200, {
        sub: grant.member,
        name: fake.member.name,
        given_name: given,
        family_name: family,
        locale: { country: "US", language: "en" },
      });
    }
    if (url.pathname.startsWith("/upload/") && method === "PUT") {
      const image = fake.images.get(decodeURIComponent(url.pathname.slice("/upload/".length)));
      if (!image) return send(res, 404, restError(404, 0, "NOT_FOUND", "Upload not found"));
      const png = raw
        .subarray(0, 8)
        .equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
      const jpeg = raw[0] === 0xff && raw[1] === 0xd8;
      if (!png && !jpeg)
        return send(res, 400, restError(400, 0, "INVALID_IMAGE", "Unsupported image format"));
      Object.assign(image, {
        status: "AVAILABLE",
        bytes: raw,
        contentType: png ? "image/png" : "image/jpeg",
      });
      return send(res, 201);
    }
    if (!url.pathname.startsWith("/rest/"))
      return send(res, 404, restError(404, 0, "NOT_FOUND", "Not found"));
    if (!/^\d{6}$/.test(String(req.headers["linkedin-version"] ?? ""))) {
      return send(
        res,
        400,
        restError(
          400,
          0,
          "VERSION_MISSING",
          "A version must be present. Please specify a version by adding the LinkedIn-Version header.",
        ),
      );
    }
    if (req.headers["x-restli-protocol-version"] !== "2.0.0") {
      return send(
        res,
        400,
        restError(400, 0, "ILLEGAL_ARGUMENT", "Rest.li protocol version 2.0.0 is required"),
      );
    }
    const mayPostAs = (author: string) =>
      author === `urn:li:person:${grant.member}`
        ? grant.scope.includes("w_member_social")
        : fake.organizations.has(author) && grant.scope.includes("w_organization_social");
    let body: Record<string, unknown> = {};
    if (method === "POST") {
      try {
        body = JSON.parse(raw.toString("utf8")) as Record<string, unknown>;
      } catch {
        return send(res, 400, restError(400, 0, "ILLEGAL_ARGUMENT", "Malformed JSON"));
      }
    }
    if (
      url.pathname === "/rest/images" &&
      method === "POST" &&
      url.searchParams.get("action") === "initializeUpload"
    ) {
      const owner = (body.initializeUploadRequest as { owner?: string } | undefined)?.owner ?? "";
      if (!/^urn:li:(person|organization):\w+$/.test(owner)) {
        return send(
          res,
          400,
          restError(400, 100, "FIELD_VALIDATION", "/initializeUploadRequest/owner: invalid URN"),
        );
      }
      if (!mayPostAs(owner))
        return denied(
          res,
          `Not enough permissions to access: images.initializeUpload for owner ${owner}`,
        );
      const urn = `urn:li:image:D4E10AQ${randomBytes(8).toString("hex")}`;
      fake.images.set(urn, {
        urn,
        owner,
        status: "WAITING_UPLOAD",
        bytes: null,
        contentType: null,
      });
      return send(res, 200, {
        value: {
          uploadUrlExpiresAt: Date.now() + 86_400_000,
          uploadUrl: `${fake.uploadBase ?? baseUrl}/upload/${encodeURIComponent(urn)}`,
          image: urn,
        },
      });
    }
    if (url.pathname === "/rest/organizationAcls" && method === "GET") {
      // Organization Access Control by role: the member's own roles (q=roleAssignee).
      if (url.searchParams.get("q") !== "roleAssignee") {
        return send(res, 400, restError(400, 0, "ILLEGAL_ARGUMENT", "Unsupported finder"));
      }
      const role = url.searchParams.get("role");
      const state = url.searchParams.get("state");
      const start = Number(url.searchParams.get("start") ?? 0);
      const count = Math.min(100, Number(url.searchParams.get("count") ?? 10));
      const roles = [...fake.organizations]
        .map((organization) => ({
          roleAssignee: `urn:li:person:${grant.member}`,
          state: "APPROVED",
          role: "ADMINISTRATOR",
          organization,
        }))
        .filter((each) => (!role || each.role === role) && (!state || each.state === state));
      return send(res, 200, {
        paging: { start, count, links: [], total: roles.length },
        elements: roles.slice(start, start + count),
      });
    }
    if (url.pathname === "/rest/posts" && method === "POST") {
      const media = (body.content as { media?: { id?: string; altText?: string } } | undefined)
        ?.media;
      const distribution = body.distribution as { feedDistribution?: string } | undefined;
      const missing = [
        typeof body.author !== "string" && "/author",
        typeof body.commentary !== "string" && "/commentary",
        !["PUBLIC", "CONNECTIONS", "LOGGED_IN"].includes(String(body.visibility)) && "/visibility",
        !["MAIN_FEED", "NONE"].includes(String(distribution?.feedDistribution)) &&
          "/distribution/feedDistribution",
        body.lifecycleState !== "PUBLISHED" && "/lifecycleState",
      ].filter(Boolean);
      if (missing.length)
        return send(
          res,
          422,
          restError(
            422,
            100,
            "FIELD_VALIDATION",
            `Field Value validation failed in REQUEST_BODY: ${missing.join(", ")}`,
          ),
        );
      const author = String(body.author);
      if (!mayPostAs(author))
        return denied(
          res,
          `Not enough permissions to access: partnerApiPostsExternal.CREATE.20251001 for ${author}`,
        );
      const image = media?.id ? fake.images.get(media.id) : undefined;
      if (image?.status !== "AVAILABLE" || image.owner !== author) {
        return send(
          res,
          422,
          restError(
            422,
            100,
            "FIELD_VALIDATION",
            "/content/media/id: the image is not uploaded or not the author's",
          ),
        );
      }
      const duplicate = fake.posts.find(
        (post) => post.author === author && post.commentary === body.commentary,
      );
      if (duplicate)
        return send(
          res,
          422,
          restError(422, 0, "DUPLICATE_POST", `Content is a duplicate of ${duplicate.id}`),
        );
      const post: FakePost = {
        id: `urn:li:share:${nextId++}`,
        author,
        commentary: String(body.commentary),
        visibility: String(body.visibility),
        imageUrn: image.urn,
        altText: String(media?.altText ?? ""),
        createdAt: Date.now(),
      };
      fake.posts.push(post);
      if (fake.holdNextPost) {
        fake.holdNextPost = false;
        held.push(res);
        onHeld?.(post);
        return;
      }
      return send(res, 201, undefined, { "x-restli-id": post.id, "x-linkedin-id": post.id });
    }
    if (
      url.pathname === "/rest/posts" &&
      method === "GET" &&
      url.searchParams.get("q") === "author"
    ) {
      if (req.headers["x-restli-method"]?.toString().toUpperCase() !== "FINDER") {
        return send(
          res,
          400,
          restError(400, 0, "ILLEGAL_ARGUMENT", "X-RestLi-Method: FINDER is required"),
        );
      }
      const author = url.searchParams.get("author") ?? "";
      if (!mayPostAs(author)) return denied(res, "Not enough permissions");
      const count = Math.min(100, Number(url.searchParams.get("count") ?? 10));
      const mine = fake.posts.filter((post) => post.author === author).reverse();
      return send(res, 200, {
        paging: { start: 0, count, links: [], total: mine.length },
        elements: mine.slice(0, count).map((post) => ({
          id: post.id,
          author: post.author,
          commentary: post.commentary,
          visibility: post.visibility,
          lifecycleState: "PUBLISHED",
          content: { media: { id: post.imageUrn, altText: post.altText } },
          createdAt: post.createdAt,
          lastModifiedAt: post.createdAt,
        })),
      });
    }
    return send(
      res,
      404,
      restError(404, 0, "NOT_FOUND", `No resource at ${method} ${url.pathname}`),
    );
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) =>
      send(res, 500, restError(500, 0, "INTERNAL", String(error))),
    );
  });
  const port = await new Promise<number>((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      resolve(typeof address === "object" && address ? address.port : 0);
    });
  });
  baseUrl = `http://127.0.0.1:${port}`;
  return Object.assign(fake, {
    url: baseUrl,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const res of held.splice(0)) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  }) as FakeLinkedIn;
}
