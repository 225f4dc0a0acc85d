import type { SecretBox } from "./secret-box";

/*
 * Backups' and tenant archives' manifests keyed with an HMAC under HERALD_SECRET_KEY (issue 44,
 * finding 7; docs/decisions/058-findings-closed.md). A manifest lists a SHA-256 of every file, so a
 * snapshot edited by hand (a staff row made super admin) restored once the checksums were
 * recomputed. The HMAC is over the manifest's own JSON: whoever changes a file must change the
 * manifest, and cannot sign it again without the key.
 */

/** The manifest field that holds `<keyId>.<hmac>` (SecretBox.digest). */
export const SIGNATURE_FIELD = "hmac";

export type ManifestKind = "backup" | "tenant archive";

/** The text signed: the manifest without its signature, as JSON.stringify writes it. */
const signedText = (fields: Record<string, unknown>) => JSON.stringify(fields, null, 2);

const purposeOf = (kind: ManifestKind) => `herald ${kind} manifest`;

/** The manifest with its signature under the box's current key (its last field). */
export function signManifest<T extends Record<string, unknown>>(
  box: SecretBox,
  kind: ManifestKind,
  manifest: T,
): T & { hmac: string } {
  const { [SIGNATURE_FIELD]: _, ...fields } = manifest;
  return { ...(fields as T), [SIGNATURE_FIELD]: box.digest(purposeOf(kind), signedText(fields)) };
}

/**
 * Why a manifest (as parsed from its JSON, before any schema) cannot be trusted, or null when its
 * signature checks out — or when it has none, or one under a key this install does not have, and
 * `allowUnsigned` says the operator takes it so.
 */
export function manifestSignatureProblem(
  box: SecretBox | null,
  kind: ManifestKind,
  raw: unknown,
  options: { allowUnsigned: boolean },
): string | null {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) return null; // the schema says
  const { [SIGNATURE_FIELD]: signature, ...fields } = raw as Record<string, unknown>;
  if (signature === undefined) {
    return options.allowUnsigned
      ? null
      : "Its manifest is not signed (made by a Herald before manifests were signed, or the signature was removed). Only if you know where it comes from, take it with --allow-unsigned.";
  }
  if (typeof signature !== "string") return "Its manifest's signature is malformed.";
  const keyId = signature.split(".")[0] ?? "";
  // A signature this install cannot check is no better than none (anyone can strip one): taken
  // only as an unsigned manifest is. One it can check and that fails is always refused.
  if (!box?.knows(keyId)) {
    if (options.allowUnsigned) return null;
    const here = box
      ? `which is neither HERALD_SECRET_KEY here (key id ${box.keyId}) nor in HERALD_SECRET_KEY_PREVIOUS`
      : "and this install has no secret key to check it";
    return `Its manifest is signed under key id ${keyId}, ${here}: set the key of the install that made it (as HERALD_SECRET_KEY_PREVIOUS when this install has its own), or, only if you know where it comes from, take it with --allow-unsigned.`;
  }
  if (!box.digestMatches(signature, purposeOf(kind), signedText(fields))) {
    return "Its manifest does not match its signature: it was changed after it was made (by hand, or by someone without the secret key).";
  }
  return null;
}
