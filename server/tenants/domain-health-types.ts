import type { DkimAlgorithm } from "../../shared/schemas/dkim";

/** The sender domain check's answer (server/tenants/domain-health.ts), as stored and shown. */

export type RecordStatus = "ok" | "missing" | "wrong" | "unchecked";

export interface RecordFix {
  name: string;
  type: "TXT" | "MX";
  value: string;
}

export interface RecordCheck {
  key: "spf" | "bounce-spf" | "dkim" | "dkim-pending" | "dmarc" | "mx" | "bounce-mx";
  /** what the record is for, in words */
  label: string;
  /** the DNS name asked */
  name: string;
  type: "TXT" | "MX";
  status: RecordStatus;
  /** what DNS answered (records of this kind at the name) */
  found: string[];
  /** one or two sentences: why this status */
  detail: string;
  /** the exact record to add (or to put in place of the one found) */
  fix: RecordFix | null;
  /** what to do when the fix is not a DNS record */
  fixNote?: string;
}

export interface DomainHealthInput {
  /** the tenant's sender address (the From of its mail) */
  fromAddress: string;
  /** the domain of campaign mail's VERP envelope sender (BOUNCE_DOMAIN) */
  bounceDomain: string;
  /** the SMTP relay's host (SMTP_URL); null when mail stays in the outbox */
  sendingHost: string | null;
  /** the host the bounce domain's MX should name */
  bounceMxHost: string;
  /** the DKIM keys that sign the tenant's mail (none, one, or an RSA and an Ed25519 key): their records as published */
  dkim: DkimKeyRecord[];
  /** new keys waiting for their records before staff switch to them (a rotation) or add them (a second algorithm) */
  pendingDkim?: DkimKeyRecord[];
}

export interface DmarcSummary {
  policy: string | null;
  /** where the policy record was found */
  policyDomain: string | null;
  /** the organisational domain (the highest name with a DMARC record: RFC 9091's tree walk) */
  orgDomain: string | null;
  adkim: "r" | "s";
  aspf: "r" | "s";
  dkimAligned: boolean;
  spfAligned: boolean;
}

export interface DomainHealth {
  checkedAt: string;
  fromDomain: string;
  bounceDomain: string;
  sendingHost: string | null;
  sendingIps: string[];
  /** the signing keys checked (stored checks from before issue 36 held one key or null: see readDomainCheck) */
  dkim: Pick<DkimKeyRecord, "selector" | "domain" | "algorithm">[];
  dmarc: DmarcSummary;
  records: RecordCheck[];
}

/** A DKIM key's record as published (the public half only). */
export interface DkimKeyRecord {
  algorithm: DkimAlgorithm;
  selector: string;
  domain: string;
  recordName: string;
  recordValue: string;
}
