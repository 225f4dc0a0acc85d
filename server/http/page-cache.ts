/**
 * Rendered HTML of anonymous page views, kept per tenant and path (issue #2's performance design).
 * A marketing page depends only on the tenant and on whether a visitor is signed in, so one render
 * serves every anonymous visitor. Entries carry the tenant's config version and are dropped when it
 * changes; a TTL bounds how stale anything else (a deploy, a newsletter) can be.
 */
export interface CachedPage {
  status: number;
  headers: [string, string][];
  body: string;
  /** the CSP nonce baked into body; replaced by a fresh one on every hit */
  nonce: string;
  tenantVersion: string;
  storedAt: number;
}

export const PAGE_CACHE_TTL_MS = 60_000;
const MAX_ENTRIES = 1_000;

export class PageCache {
  private readonly entries = new Map<string, CachedPage>();

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
    if (this.entries.size >= MAX_ENTRIES) {
      // Maps iterate in insertion order: drop the oldest entry.
      const oldest = this.entries.keys().next().value;
      if (oldest !== undefined) this.entries.delete(oldest);
    }
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

/** Marks a route's response as shareable between anonymous visitors of one tenant. */
export const PAGE_CACHE_HEADER = "x-herald-page-cache";
