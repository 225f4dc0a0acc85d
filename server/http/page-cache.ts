import { BoundedMap } from "../../shared/bounded-map";

/**
 * Rendered HTML of anonymous page views, kept per tenant and path (issue #2's performance design).
 * A marketing page depends only on the tenant and on whether a visitor is signed in, so one render
 * serves every anonymous visitor. Entries carry the tenant's config version and are dropped when it
 * changes; a TTL bounds how stale anything else (a deploy, a newsletter) can be.
 */
export interface CachedPage {
  status: number;
  headers: [string, string][];
  /** the body, split around its per-request values (splitPage) */
  parts: PageParts;
  /** the CSP nonce baked into the render; replaced by a fresh one on every hit */
  nonce: string;
  tenantVersion: string;
  storedAt: number;
  /** the route pattern that rendered it, for the request histogram (server/metrics.ts) */
  route?: string;
}

export const PAGE_CACHE_TTL_MS = 60_000;
const MAX_ENTRIES = 1_000;

export class PageCache {
  private readonly entries = new BoundedMap<string, CachedPage>(MAX_ENTRIES);

  constructor(private readonly ttlMs = PAGE_CACHE_TTL_MS) {}

  private key(tenantId: string, path: string) {
    return `${tenantId}\u0000${path}`;
  }

  get(tenantId: string, path: string, tenantVersion: string): CachedPage | undefined {
    const key = this.key(tenantId, path);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.tenantVersion !== tenantVersion || Date.now() - entry.storedAt > this.ttlMs) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  set(tenantId: string, path: string, page: CachedPage): void {
    this.entries.set(this.key(tenantId, path), page);
  }

  dropTenant(tenantId: string): void {
    const prefix = `${tenantId}\u0000`;
    for (const key of this.entries.keys()) if (key.startsWith(prefix)) this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * A rendered page split around the markers that change per request (the CSP nonce, a view count):
 * the text between them already encoded as UTF-8, so that a hit is one memory copy instead of a
 * search-and-replace per marker and an encoding of the whole page (both measured as the largest
 * costs of a cached newsletter page).
 */
export interface PageParts {
  /** the page's text around the markers: one more than markers */
  text: Buffer[];
  markers: string[];
}

export function splitPage(body: string, markers: readonly string[]): PageParts {
  const alternatives = [...new Set(markers)]
    .filter(Boolean)
    .sort((a, b) => b.length - a.length)
    .map(escapeRegExp);
  // A capturing split keeps each marker at the odd indexes.
  const pieces =
    alternatives.length === 0 ? [body] : body.split(new RegExp(`(${alternatives.join("|")})`));
  return {
    text: pieces.filter((_, index) => index % 2 === 0).map((piece) => Buffer.from(piece)),
    markers: pieces.filter((_, index) => index % 2 === 1),
  };
}

/** The page with each marker's value for this request in its place, as the chunks to send. */
export function pageChunks(parts: PageParts, values: ReadonlyMap<string, string>): Buffer[] {
  const chunks: Buffer[] = [];
  parts.text.forEach((text, index) => {
    chunks.push(text);
    const marker = parts.markers[index];
    if (marker !== undefined) chunks.push(Buffer.from(values.get(marker) ?? marker));
  });
  return chunks;
}

/** The page with each marker's value for this request in its place. */
export function fillPage(parts: PageParts, values: ReadonlyMap<string, string>): Buffer {
  return Buffer.concat(pageChunks(parts, values));
}

/** Marks a route's response as shareable between anonymous visitors of one tenant. */
export const PAGE_CACHE_HEADER = "x-herald-page-cache";
