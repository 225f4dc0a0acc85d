import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { getNewsletter } from "../newsletters/listing";
import type { Scope } from "../scope";
import { claimOnce } from "../settings";
import { LinkedInApi, LinkedInError } from "./api";
import { type AuthorKind, saveConnection, scopeFor } from "./connections";
import { LINKEDIN_MESSAGES } from "./messages";

/*
 * The OAuth 2.0 authorization code flow (docs/decisions/046-linkedin.md). The `state` sent to
 * LinkedIn is signed with the session secret and names the tenant, a digest of the staff
 * member's session, what they chose to post as, the newsletter they arrived with (the social
 * pack's "Post it on LinkedIn", so it is still chosen after connecting) and when it lapses
 * (10 minutes): the callback accepts only the state this browser's session started, for this
 * tenant, and only once: its nonce is recorded as used (the `settings` table, until it lapses)
 * before the code is exchanged (issue 44, finding 9). An organization page is connected only when
 * LinkedIn says the member administers it (organizationAcls).
 */

const STATE_MS = 10 * 60_000;
/** The settings keys of states used already (each until it lapses). */
const USED_STATE = "linkedin-oauth-state-used:";
const ORGANIZATION_ID = /^\d{1,19}$/;

export const CALLBACK_PATH = "/admin/linkedin/callback";

const statePayload = z.object({
  t: z.string(),
  s: z.string(),
  k: z.enum(["member", "organization"]),
  o: z.string().regex(ORGANIZATION_ID).nullable(),
  e: z.number(),
  n: z.string(),
  // Only a pre-selection: a malformed one (or none, from a state made before it was carried) is
  // dropped, never a reason to refuse the connection.
  l: z.uuid().nullable().catch(null),
});

/** A newsletter id as Herald makes them (randomUUID), or null: what the state may carry. */
const carriedNewsletter = (id: string | null | undefined) => z.uuid().safeParse(id).data ?? null;

const sessionDigest = (sessionToken: string) =>
  createHash("sha256").update(`linkedin-oauth\n${sessionToken}`).digest("base64url").slice(0, 22);

const mac = (secret: string, payload: string) =>
  createHmac("sha256", secret).update(`linkedin-oauth-state\n${payload}`).digest("base64url");

type OAuthScope = Pick<Scope, "db" | "tenantId" | "env" | "origin" | "sessionSecret">;

export class LinkedInConnectError extends Error {}

/** The LinkedIn address to send the browser to, for a member or an organization page. */
export function startConnection(
  scope: OAuthScope,
  sessionToken: string,
  choice: { kind: AuthorKind; organizationId: string | null; newsletterId?: string | null },
  now = Date.now(),
): string {
  const api = new LinkedInApi(scope.env);
  if (!api.configured) throw new LinkedInConnectError(LINKEDIN_MESSAGES.notConfigured);
  if (choice.kind === "organization" && !ORGANIZATION_ID.test(choice.organizationId ?? "")) {
    throw new LinkedInConnectError(LINKEDIN_MESSAGES.organizationId);
  }
  const payload = Buffer.from(
    JSON.stringify({
      t: scope.tenantId,
      s: sessionDigest(sessionToken),
      k: choice.kind,
      o: choice.kind === "organization" ? choice.organizationId : null,
      e: now + STATE_MS,
      n: randomBytes(9).toString("base64url"),
      l: carriedNewsletter(choice.newsletterId),
    }),
  ).toString("base64url");
  return api.authorizationUrl({
    redirectUri: `${scope.origin}${CALLBACK_PATH}`,
    state: `${payload}.${mac(scope.sessionSecret, payload)}`,
    scope: scopeFor(choice.kind),
  });
}

function readState(scope: OAuthScope, sessionToken: string, state: string, now: number) {
  const [payload = "", signature = ""] = state.split(".");
  const expected = Buffer.from(mac(scope.sessionSecret, payload));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  let parsed: z.infer<typeof statePayload>;
  try {
    parsed = statePayload.parse(JSON.parse(Buffer.from(payload, "base64url").toString("utf8")));
  } catch {
    return null;
  }
  const ok =
    parsed.t === scope.tenantId && parsed.s === sessionDigest(sessionToken) && parsed.e > now;
  return ok ? parsed : null;
}

/**
 * LinkedIn's redirect back: the state checked, the code exchanged, the member read and the
 * connection saved with its tokens sealed. Throws LinkedInConnectError with what to tell staff.
 * `newsletterId`: the newsletter staff arrived with, if it is one of this tenant's, else null.
 */
export async function completeConnection(
  scope: OAuthScope,
  sessionToken: string,
  query: URLSearchParams,
  actor: string,
  now = Date.now(),
): Promise<{ authorName: string; newsletterId: string | null }> {
  const state = readState(scope, sessionToken, query.get("state") ?? "", now);
  if (!state) throw new LinkedInConnectError(LINKEDIN_MESSAGES.badState);
  if (query.get("error")) {
    throw new LinkedInConnectError(
      `${LINKEDIN_MESSAGES.declined} (${query.get("error_description") ?? query.get("error")})`,
    );
  }
  const code = query.get("code");
  if (!code) throw new LinkedInConnectError(LINKEDIN_MESSAGES.badState);
  if (!(await claimOnce(scope.db, USED_STATE, state.n, new Date(state.e).toISOString()))) {
    throw new LinkedInConnectError(LINKEDIN_MESSAGES.usedState);
  }
  const api = new LinkedInApi(scope.env);
  try {
    const answer = await api.exchangeCode(code, `${scope.origin}${CALLBACK_PATH}`);
    const member = await api.userInfo(answer.access_token);
    const organization = state.k === "organization" ? `urn:li:organization:${state.o}` : null;
    if (organization && !(await api.administers(answer.access_token, organization))) {
      throw new LinkedInConnectError(
        LINKEDIN_MESSAGES.notAdministrator(member.name || member.urn, state.o ?? ""),
      );
    }
    const authorName = organization ? `Organization ${state.o} (via ${member.name})` : member.name;
    await saveConnection(scope.db, scope.tenantId, {
      kind: state.k,
      authorUrn: organization ?? member.urn,
      authorName,
      answer,
      actor,
    });
    // Never trusted: a newsletter of another tenant (or one since deleted) is simply not chosen.
    const newsletter = state.l ? await getNewsletter(scope, state.l) : null;
    return { authorName, newsletterId: newsletter?.id ?? null };
  } catch (error) {
    if (error instanceof LinkedInError || error instanceof z.ZodError) {
      throw new LinkedInConnectError(`${LINKEDIN_MESSAGES.exchangeFailed} ${error.message}`);
    }
    throw error;
  }
}
