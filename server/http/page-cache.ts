import { MiB, memoryCache } from "../memory-cache";

/**
 * Rendered HTML of anonymous page views, kept per tenant and path (issue #2's performance design).
 * A marketing page depends only on the tenant and on whether a visitor is signed in, so one render
 * serves every anonymous visitor. Entries carry the tenant's config version and are dropped when it
 * changes; a TTL bounds how stale anything else (a deploy, a newsletter) can be. Bounded by the
 * bytes of the pages, the least recently used going first (issue 34): a crawler walking every
 * archive page pushes out its own one-off pages, not the pages readers keep asking for.
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
/** PAGE_CACHE_MB's default: some hundreds of pages (one is 40–150 KB, its inline stylesheet included). */
export const DEFAULT_PAGE_CACHE_MB = 48;

/** What a kept page holds in memory, about: its bytes, its header strings, the key. */
function pageBytes(page: CachedPage, key: string): number {
  let bytes = 2 * key.length + 256;
  for (const text of page.parts.text) bytes += text.length + 96;
  for (const marker of page.parts.markers) bytes += 2 * marker.length + 48;
  for (const [name, value] of page.headers) bytes += 2 * (name.length + value.length) + 64;
  return bytes;
}

export class PageCache {
  private readonly entries;

  constructor(options: { ttlMs?: number; maxBytes?: number } = {}) {
    const maxBytes = options.maxBytes ?? DEFAULT_PAGE_CACHE_MB * MiB;
    this.entries = memoryCache<string, CachedPage>({
      maxBytes,
      // A single page may take a quarter: a long article is a few hundred KB, a cache 1 MB+.
      maxEntryBytes: Math.floor(maxBytes / 4),
      ttlMs: options.ttlMs ?? PAGE_CACHE_TTL_MS,
      bytesOf: pageBytes,
    });
  }

  private key(tenantId: string, path: string) {
    return `${tenantId}\u0000${path}`;
  }

  /** The page if kept, fresh and of the tenant's current version; a hit makes it the most recent. */
  get(tenantId: string, path: string, tenantVersion: string): CachedPage | undefined {
    const key = this.key(tenantId, path);
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.tenantVersion !== tenantVersion) {
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
    const dropped = [...this.entries.keys()].filter((key) => key.startsWith(prefix));
    for (const key of dropped) this.entries.delete(key);
  }

  clear(): void {
    this.entries.clear();
  }

  get size(): number {
    return this.entries.size;
  }

  /** the bytes the kept pages hold, as counted for the bound */
  get bytes(): number {
    return this.entries.calculatedSize;
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

/**
 * The query parameters a kept page reads, and the values it tells apart (issue 44, finding 2):
 * the key varies on these only, so `?x=<random>` is the same page, a hit. A page that starts
 * reading another parameter adds it here (page-cache.test.ts checks the public routes' reads).
 */
export const PAGE_QUERY: Readonly<Record<string, RegExp>> = {
  page: /^[1-9]\d{0,5}$/, // the archive's later pages
  sent: /^1$/, // the contact form's thanks
  done: /^1$/, // the sign-up page's thanks
};
/** Read with any value (a search): a request with one is never kept. */
const UNKEPT_QUERY = new Set(["q"]);
/** Read before the cache (where a reader came from, which tenant): passed on, not in the key. */
const PASSED_QUERY = /^(utm_.*|subdomain)$/;

/**
 * Where an anonymous GET of `path` with `search` is kept, and the address a kept page is rendered
 * at (`dropped`: parameters no page reads were left out of it, so a kept page never holds them);
 * null: never kept.
 */
export function pageCacheAddress(
  path: string,
  search: string,
): { key: string; renderAt: string; dropped: boolean } | null {
  const query = new URLSearchParams(search);
  const keyed: [string, string][] = [];
  const passed: [string, string][] = [];
  const seen = new Set<string>();
  let dropped = false;
  for (const [name, value] of query) {
    if (PASSED_QUERY.test(name)) {
      passed.push([name, value]);
      continue;
    }
    if (UNKEPT_QUERY.has(name)) return null;
    const values = PAGE_QUERY[name];
    if (!values) {
      dropped = true;
      continue;
    }
    // Read, with a value it does not tell apart (or twice): rendered as asked, not kept.
    if (seen.has(name) || !values.test(value)) return null;
    seen.add(name);
    keyed.push([name, value]);
  }
  keyed.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const keyQuery = new URLSearchParams(keyed).toString();
  const renderQuery = new URLSearchParams([...keyed, ...passed]).toString();
  return {
    key: keyQuery ? `${path}?${keyQuery}` : path,
    renderAt: renderQuery ? `${path}?${renderQuery}` : path,
    dropped,
  };
}
