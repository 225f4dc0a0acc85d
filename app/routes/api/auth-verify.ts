import { verifyAuthToken } from "../../../server/api/auth";
import { API_MESSAGES, ApiError } from "../../../server/api/errors";
import { answerApi, methodNotAllowed } from "../../../server/api/route";
import { scopeOf } from "../../../server/http/context";
import type { Route } from "./+types/auth-verify";

/**
 * GET /api/auth/verify (SPEC §7) — `x-auth-token` (a session token or an API token) →
 * `{ isAdmin, … }`; 401 without a valid token. The tenant manager's guard asks the same question.
 */
export async function loader({ request, context }: Route.LoaderArgs) {
  return answerApi(context, async () => {
    const token = request.headers.get("x-auth-token")?.trim();
    const verified = token ? await verifyAuthToken(scopeOf(context).db, token) : null;
    if (!verified) throw new ApiError("UNAUTHENTICATED", API_MESSAGES.unauthenticated);
    const { user, tokenName } = verified;
    return {
      isAdmin: user.isSuperAdmin,
      user: { id: user.id, email: user.email, role: user.role, products: user.products },
      via: tokenName === null ? "session-token" : "api-token",
    };
  });
}

export function action() {
  return methodNotAllowed(["GET"]);
}
