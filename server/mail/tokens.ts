import { createHmac } from "node:crypto";
import { signatureMatches } from "../secrets";

/**
 * Signed, self-contained tokens for links in mail (one-click unsubscribe, the preference page,
 * sign-up confirmation). base64url(JSON payload) + "." + HMAC-SHA256 over it with the session secret.
 */
export type TokenPurpose = "unsubscribe" | "preferences" | "confirm-signup";

export interface TokenPayload {
  purpose: TokenPurpose;
  tenantId: string;
  subscriberId: number;
  /** expiry in epoch ms; absent = no expiry */
  expiresAt?: number;
}

const mac = (secret: string, body: string) => createHmac("sha256", secret).update(body).digest();

export function signToken(secret: string, payload: TokenPayload): string {
  const body = Buffer.from(JSON.stringify(payload)).toString("base64url");
  return `${body}.${mac(secret, body).toString("base64url")}`;
}

/** The payload when the signature is right, the purpose matches and it has not expired; else null. */
export function verifyToken(
  secret: string,
  token: string | null | undefined,
  purpose: TokenPurpose,
  now = Date.now(),
): TokenPayload | null {
  if (!token || token.length > 1000) return null;
  const [body, signature] = token.split(".");
  if (!body || !signature) return null;
  if (!signatureMatches(signature, mac(secret, body))) return null;
  try {
    const payload = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as TokenPayload;
    if (
      payload.purpose !== purpose ||
      typeof payload.subscriberId !== "number" ||
      typeof payload.tenantId !== "string"
    ) {
      return null;
    }
    if (payload.expiresAt !== undefined && payload.expiresAt < now) return null;
    return payload;
  } catch {
    return null;
  }
}
