import { z } from "../zod";
import { domainField } from "./tenant";
import { storableText } from "./text";

/**
 * A tenant's DKIM key (issue 12, part 5): what staff choose when they generate one. Shared by the
 * tenant manager's form and the server's rules.
 */

export const DKIM_ALGORITHMS = ["rsa", "ed25519"] as const;
export type DkimAlgorithm = (typeof DKIM_ALGORITHMS)[number];

export const DKIM_ALGORITHM_LABELS: Record<DkimAlgorithm, string> = {
  rsa: "RSA-2048",
  ed25519: "Ed25519",
};

/** What a DKIM action did: the tenant page's `?dkim=` after it, naming the message to show. */
export const DKIM_OUTCOMES = [
  "generated",
  "pending",
  "second",
  "activated",
  "both",
  "discarded",
  "removed",
  "removedOne",
] as const;
export type DkimOutcome = (typeof DKIM_OUTCOMES)[number];

export const DKIM_MESSAGES = {
  generated: "DKIM key generated. Publish the TXT record below; mail of this tenant is now signed.",
  pending:
    "New DKIM key generated. Publish its TXT record, then switch to it; until then the current key keeps signing.",
  second:
    "New DKIM key generated. Publish its TXT record, then add it; until then the current key signs alone.",
  activated: "The new DKIM key now signs this tenant's mail.",
  both: "Both DKIM keys now sign this tenant's mail: every message carries an RSA and an Ed25519 signature.",
  discarded: "The new DKIM key was discarded; the current key keeps signing.",
  removed: "DKIM key removed. This tenant's mail goes out unsigned.",
  removedOne: "DKIM key removed. The other key signs this tenant's mail alone.",
  failed: "The DKIM key was not changed.",
  sameSelector: "Use a new selector: the current key already uses this one",
  selectorTaken: "Use a new selector: another key of this tenant already uses this one",
  noPending: "There is no new key to switch to",
  noKey: "This tenant has no DKIM key",
  noKeyOfType: "This tenant has no key of this type signing",
  onlyKey: "This key signs alone: remove it with Remove DKIM key",
  confirmRemove: "Tick the box to confirm: mail will go out unsigned",
  confirmRemoveOne: "Tick the box to confirm: the other key will sign alone",
  otherTenant: "This form belongs to another tenant; reload the page and try again",
} as const;

/** A DNS label (RFC 1035): letters, digits and hyphens, not at either end, at most 63. */
const DNS_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

export const dkimSelectorField = storableText({ error: "Selector is required" })
  .trim()
  .toLowerCase()
  .min(1, { error: "Selector is required", abort: true })
  .max(63, { error: "Selector must be at most 63 characters", abort: true })
  .regex(
    DNS_LABEL,
    "Selector may only use letters, digits and hyphens, and may not start or end with a hyphen",
  );

export const dkimAlgorithmField = z.enum(DKIM_ALGORITHMS, {
  error: "Key type must be RSA-2048 or Ed25519",
});

export const dkimKeySchema = z.object({
  selector: dkimSelectorField,
  domain: domainField,
  algorithm: dkimAlgorithmField,
});
export type DkimKeyInput = z.input<typeof dkimKeySchema>;

/**
 * `herald` and today's date (herald20250611); a rotation on the same day adds the time (to the
 * minute, then the second) until the selector is one the tenant's keys do not use.
 */
export function defaultDkimSelector(
  now = new Date(),
  taken: string | readonly string[] = [],
): string {
  const used = new Set(typeof taken === "string" ? [taken] : taken);
  const stamp = now.toISOString().replace(/\D/g, "");
  const day = `herald${stamp.slice(0, 8)}`;
  if (!used.has(day)) return day;
  const minute = `herald${stamp.slice(0, 12)}`;
  if (!used.has(minute)) return minute;
  return `herald${stamp.slice(0, 14)}`;
}

/** The domain of an email address (the tenant's sender): the default signing domain. */
export function domainOfAddress(address: string): string {
  return address.slice(address.lastIndexOf("@") + 1).toLowerCase();
}
