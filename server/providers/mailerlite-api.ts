import { setTimeout as sleep } from "node:timers/promises";
import { PROVIDER_MESSAGES, ProviderError } from "./types";

export const MAILERLITE_DEFAULT_BASE_URL = "https://connect.mailerlite.com/api";

/** base URL + API key → when the next call may go (MailerLite limits calls per key). */
const nextCallAt = new Map<string, number>();

/** Which MailerLite account, and how patiently to call it. */
export interface MailerLiteConnection {
  baseUrl?: string;
  apiKey: string;
  /** at least this long between two calls: 500 ms keeps under MailerLite's 120 a minute */
  minIntervalMs?: number;
  /** tries after the first for 429, 5xx and timeouts */
  retries?: number;
  timeoutMs?: number;
}

/**
 * MailerLite's REST API with Bearer auth, calls spaced to stay under its rate limit, 429 answered
 * by waiting Retry-After, 5xx and timeouts retried with backoff, and its errors turned into SPEC §8
 * statuses (401 → a configuration message staff can act on; 422 → the field messages). The
 * provider (mailerlite.ts) is built on it.
 */
export class MailerLiteApi {
  protected readonly baseUrl: string;

  constructor(private readonly connection: MailerLiteConnection) {
    this.baseUrl = (connection.baseUrl ?? MAILERLITE_DEFAULT_BASE_URL).replace(/\/$/, "");
  }

  /** Calls are spaced per API key, across every provider object of this process. */
  private async space(): Promise<void> {
    const interval = this.connection.minIntervalMs ?? 500;
    const key = `${this.baseUrl} ${this.connection.apiKey}`;
    const now = Date.now();
    const at = Math.max(now, nextCallAt.get(key) ?? 0);
    nextCallAt.set(key, at + interval);
    if (at > now) await sleep(at - now);
  }

  /** One API call; `expect` lists the statuses that are answers (404 may be one). */
  async call<T>(
    method: string,
    path: string,
    body?: unknown,
    expect: number[] = [200, 201],
  ): Promise<{ status: number; json: T }> {
    const retries = this.connection.retries ?? 3;
    for (let attempt = 0; ; attempt++) {
      await this.space();
      let response: Response;
      try {
        response = await fetch(`${this.baseUrl}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${this.connection.apiKey}`,
            accept: "application/json",
            ...(body === undefined ? {} : { "content-type": "application/json" }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
          signal: AbortSignal.timeout(this.connection.timeoutMs ?? 15_000),
        });
      } catch {
        if (attempt < retries) {
          await sleep(backoff(attempt));
          continue;
        }
        throw new ProviderError(PROVIDER_MESSAGES.failed, "UNAVAILABLE");
      }
      const text = await response.text();
      const json = (text ? safeJson(text) : {}) as T & {
        message?: string;
        errors?: Record<string, string[]>;
      };
      if (expect.includes(response.status)) return { status: response.status, json };
      if (response.status === 429 && attempt < retries) {
        const wait = Number(response.headers.get("retry-after") ?? "1");
        await sleep(Math.min(Number.isFinite(wait) ? wait : 1, 60) * 1000);
        continue;
      }
      if (response.status >= 500 && attempt < retries) {
        await sleep(backoff(attempt));
        continue;
      }
      if (response.status === 401) {
        throw new ProviderError(
          `MailerLite refused the API key (${json.message ?? "Unauthenticated"}): check MAILERLITE_API_KEY.`,
          "UNAVAILABLE",
        );
      }
      if (response.status === 404) {
        throw new ProviderError(json.message ?? "Not found", "NOT_FOUND");
      }
      if (response.status === 422) {
        const fields = json.errors ?? {};
        const messages = Object.values(fields).flat();
        throw new ProviderError(
          messages.join(" ") || json.message || "Invalid data",
          "INVALID_ARGUMENT",
          fields,
        );
      }
      if (response.status === 429) {
        throw new ProviderError(PROVIDER_MESSAGES.failed, "RESOURCE_EXHAUSTED");
      }
      throw new ProviderError(PROVIDER_MESSAGES.failed, "UNAVAILABLE");
    }
  }
}

const backoff = (attempt: number) => Math.min(250 * 2 ** attempt, 4_000);

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}
