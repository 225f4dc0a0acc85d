import { createServer, type IncomingMessage, type ServerResponse } from "node:http";

/**
 * A local HTTP server that answers as MailerLite's API documentation says (base /api): bearer auth
 * (401 `{message}`), POST /subscribers as an upsert (201 new, 200 existing; it only adds groups),
 * PUT /subscribers/{id} replacing groups only when `groups` is sent, GET /subscribers/{id|email}
 * with embedded groups (404 for none), GET /subscribers?limit=0 with a top-level `total`, group
 * membership (POST 200, DELETE 204), groups with counts, campaigns (422 `{message, errors}` on bad
 * input; a campaign without groups would go to everyone), schedule, and 429 with Retry-After past
 * `limitPerMinute` requests in a minute (`windowMs`
 * shortens the minute for tests).
 */
export interface FakeSubscriber {
  id: string;
  email: string;
  status: "active" | "unsubscribed" | "unconfirmed" | "bounced" | "junk";
  /** name, last_name and any custom field (issue 33: the move reads them all) */
  fields: { name: string | null } & Record<string, string | number | null>;
  groups: string[];
  subscribed_at: string;
}

export interface FakeCampaign {
  id: string;
  name: string;
  type: string;
  status: "draft" | "ready" | "sent";
  emails: { subject: string; from_name: string; from: string; content: string }[];
  groups: string[];
  settings: { track_opens: boolean; track_clicks: boolean };
  scheduled_for: string | null;
  created_at: string;
}

export interface FakeMailerLite {
  url: string;
  apiKey: string;
  subscribers: Map<string, FakeSubscriber>;
  groups: Map<string, { id: string; name: string }>;
  campaigns: Map<string, FakeCampaign>;
  /** every request: method and path, for assertions on what reached the HTTP layer */
  requests: { method: string; path: string; body: unknown }[];
  limitPerMinute: number;
  /** answer the next n requests with this status (e.g. 503), to exercise retries */
  failNext: { status: number; count: number } | null;
  /** the account's fields (GET /fields): name and last_name, and custom ones a test adds */
  fields: { key: string; name: string; type: "text" | "number" | "date" }[];
  /** the most subscribers a page holds, whatever `limit` asks (MailerLite: 1000) */
  pageLimitCap: number;
  /** pages of GET /subscribers answered before every further page fails with 500; null: none fail */
  failPagesAfter: number | null;
  /** pages of GET /subscribers answered so far */
  pagesServed: number;
  stop(): Promise<void>;
}

export async function startFakeMailerLite(
  options: { apiKey?: string; limitPerMinute?: number; windowMs?: number } = {},
): Promise<FakeMailerLite> {
  let nextId = 1000;
  const id = () => String(nextId++);
  const fake: Omit<FakeMailerLite, "url" | "stop"> = {
    apiKey: options.apiKey ?? "test-api-key",
    subscribers: new Map(),
    groups: new Map(),
    campaigns: new Map(),
    requests: [],
    limitPerMinute: options.limitPerMinute ?? 120,
    failNext: null,
    fields: [
      { key: "name", name: "Name", type: "text" },
      { key: "last_name", name: "Last name", type: "text" },
    ],
    pageLimitCap: 1000,
    failPagesAfter: null,
    pagesServed: 0,
  };
  const window: number[] = [];

  const send = (
    res: ServerResponse,
    status: number,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    res.writeHead(status, { "content-type": "application/json", ...headers });
    res.end(body === undefined ? "" : JSON.stringify(body));
  };
  const view = (subscriber: FakeSubscriber) => ({
    id: subscriber.id,
    email: subscriber.email,
    status: subscriber.status,
    fields: subscriber.fields,
    subscribed_at: subscriber.subscribed_at,
    groups: subscriber.groups.map((groupId) => ({
      id: groupId,
      name: fake.groups.get(groupId)?.name ?? "",
    })),
  });
  const find = (key: string) =>
    fake.subscribers.get(key) ??
    [...fake.subscribers.values()].find((s) => s.email === key.toLowerCase());
  const invalid = (res: ServerResponse, errors: Record<string, string[]>) =>
    send(res, 422, {
      message: Object.values(errors)[0]?.[0] ?? "The given data was invalid.",
      errors,
    });

  async function handle(req: IncomingMessage, res: ServerResponse) {
    const raw = await new Promise<string>((resolve) => {
      let text = "";
      req.on("data", (chunk) => {
        text += chunk;
      });
      req.on("end", () => resolve(text));
    });
    const url = new URL(req.url ?? "/", "http://fake");
    const path = url.pathname.replace(/^\/api/, "");
    let body: Record<string, unknown> = {};
    try {
      body = raw ? (JSON.parse(raw) as Record<string, unknown>) : {};
    } catch {
      return send(res, 400, { message: "Malformed JSON" });
    }
    fake.requests.push({ method: req.method ?? "", path: `${path}${url.search}`, body });
    if (req.headers.authorization !== `Bearer ${fake.apiKey}`) {
      return send(res, 401, { message: "Unauthenticated." });
    }
    const now = Date.now();
    const windowMs = options.windowMs ?? 60_000;
    while (window.length && (window[0] ?? 0) < now - windowMs) window.shift();
    if (window.length >= fake.limitPerMinute) {
      const retryAfter = Math.max(1, Math.ceil(((window[0] ?? now) + windowMs - now) / 1000));
      return send(
        res,
        429,
        { message: "Too Many Attempts." },
        { "retry-after": String(retryAfter) },
      );
    }
    window.push(now);
    if (fake.failNext && fake.failNext.count > 0) {
      fake.failNext.count--;
      return send(res, fake.failNext.status, { message: "Server error" });
    }
    const parts = path.split("/").filter(Boolean);
    const method = req.method;

    if (parts[0] === "subscribers") {
      if (parts.length === 1 && method === "GET") {
        const all = [...fake.subscribers.values()];
        if (url.searchParams.get("limit") === "0") return send(res, 200, { total: all.length });
        if (fake.failPagesAfter !== null && fake.pagesServed >= fake.failPagesAfter) {
          return send(res, 500, { message: "Server Error" });
        }
        fake.pagesServed++;
        // Cursor pagination as MailerLite's list answers it: the cursor is opaque (here the
        // base64 of the last id served), meta.next_cursor is null on the last page.
        const limit = Math.min(
          Math.max(1, Number(url.searchParams.get("limit") ?? 25) || 25),
          fake.pageLimitCap,
        );
        const cursor = url.searchParams.get("cursor");
        const after = cursor ? Buffer.from(cursor, "base64url").toString() : null;
        const ordered = all.sort((a, b) => Number(a.id) - Number(b.id));
        const start = after === null ? 0 : ordered.findIndex((s) => Number(s.id) > Number(after));
        const page = start < 0 ? [] : ordered.slice(start, start + limit);
        const last = page[page.length - 1];
        const more = start >= 0 && start + limit < ordered.length;
        return send(res, 200, {
          data: page.map(view),
          links: { first: null, last: null, prev: null, next: null },
          meta: {
            path: "/api/subscribers",
            total: all.length,
            per_page: limit,
            next_cursor: more && last ? Buffer.from(last.id).toString("base64url") : null,
            prev_cursor: null,
          },
        });
      }
      if (parts.length === 1 && method === "POST") {
        const email = String(body.email ?? "")
          .trim()
          .toLowerCase();
        if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) {
          return invalid(res, { email: ["The email must be a valid email address."] });
        }
        const groups = (body.groups as string[] | undefined) ?? [];
        const unknown = groups.find((groupId) => !fake.groups.has(String(groupId)));
        if (unknown) return invalid(res, { groups: [`The selected group ${unknown} is invalid.`] });
        const existing = find(email);
        const fields = (body.fields as { name?: string } | undefined) ?? {};
        if (existing) {
          existing.groups = [...new Set([...existing.groups, ...groups.map(String)])];
          if (fields.name !== undefined) existing.fields.name = fields.name;
          if (body.status) existing.status = body.status as FakeSubscriber["status"];
          return send(res, 200, { data: view(existing) });
        }
        const created: FakeSubscriber = {
          id: id(),
          email,
          status: (body.status as FakeSubscriber["status"]) ?? "active",
          fields: { name: fields.name ?? null },
          groups: groups.map(String),
          subscribed_at: new Date().toISOString(),
        };
        fake.subscribers.set(created.id, created);
        return send(res, 201, { data: view(created) });
      }
      const subscriber = find(decodeURIComponent(parts[1] ?? ""));
      if (!subscriber) return send(res, 404, { message: "Resource not found." });
      if (parts.length === 2 && method === "GET") return send(res, 200, { data: view(subscriber) });
      if (parts.length === 2 && method === "PUT") {
        if (Array.isArray(body.groups)) subscriber.groups = (body.groups as string[]).map(String);
        const fields = body.fields as { name?: string } | undefined;
        if (fields?.name !== undefined) subscriber.fields.name = fields.name;
        if (body.status) subscriber.status = body.status as FakeSubscriber["status"];
        return send(res, 200, { data: view(subscriber) });
      }
      if (parts[2] === "groups" && parts[3]) {
        const groupId = parts[3];
        if (!fake.groups.has(groupId)) return send(res, 404, { message: "Resource not found." });
        if (method === "POST") {
          if (!subscriber.groups.includes(groupId)) subscriber.groups.push(groupId);
          return send(res, 200, { data: fake.groups.get(groupId) });
        }
        if (method === "DELETE") {
          subscriber.groups = subscriber.groups.filter((g) => g !== groupId);
          res.writeHead(204);
          return res.end();
        }
      }
    }

    if (parts[0] === "fields" && parts.length === 1 && method === "GET") {
      return send(res, 200, {
        data: fake.fields.map((field, index) => ({ id: String(index + 1), ...field })),
        meta: { total: fake.fields.length },
      });
    }

    if (parts[0] === "groups" && parts.length === 1 && method === "GET") {
      const data = [...fake.groups.values()].map((group) => {
        const members = [...fake.subscribers.values()].filter((s) => s.groups.includes(group.id));
        const sent = [...fake.campaigns.values()].filter(
          (c) => c.status === "sent" && c.groups.includes(group.id),
        );
        return {
          ...group,
          active_count: members.filter((s) => s.status === "active").length,
          sent_count: sent.length,
          opens_count: 0,
          clicks_count: 0,
        };
      });
      return send(res, 200, { data, meta: { total: data.length } });
    }

    if (parts[0] === "campaigns") {
      if (parts.length === 1 && method === "POST") {
        const emails = body.emails as FakeCampaign["emails"] | undefined;
        const errors: Record<string, string[]> = {};
        if (!body.name) errors.name = ["The name field is required."];
        if (body.type !== "regular") errors.type = ["The selected type is invalid."];
        if (!Array.isArray(emails) || emails.length !== 1)
          errors.emails = ["Exactly one email is required."];
        else if (!emails[0]?.subject)
          errors["emails.0.subject"] = ["The emails.0.subject field is required."];
        const groups = ((body.groups as string[] | undefined) ?? []).map(String);
        const unknown = groups.find((groupId) => !fake.groups.has(groupId));
        if (unknown) errors.groups = [`The selected group ${unknown} is invalid.`];
        if (Object.keys(errors).length) return invalid(res, errors);
        const campaign: FakeCampaign = {
          id: id(),
          name: String(body.name),
          type: "regular",
          status: "draft",
          emails: emails ?? [],
          // MailerLite: no groups means every active subscriber. The fake keeps that behaviour.
          groups: groups.length ? groups : [...fake.groups.keys()],
          settings: {
            track_opens:
              (body.settings as { track_opens?: boolean } | undefined)?.track_opens ?? true,
            track_clicks:
              (body.settings as { track_clicks?: boolean } | undefined)?.track_clicks ?? true,
          },
          scheduled_for: null,
          created_at: new Date().toISOString(),
        };
        fake.campaigns.set(campaign.id, campaign);
        return send(res, 201, { data: campaign });
      }
      if (parts.length === 1 && method === "GET") {
        const status = url.searchParams.get("filter[status]");
        const limit = Number(url.searchParams.get("limit") ?? 25);
        const page = Number(url.searchParams.get("page") ?? 1);
        const all = [...fake.campaigns.values()].filter((c) => !status || c.status === status);
        return send(res, 200, {
          data: all.slice((page - 1) * limit, page * limit),
          meta: { total: all.length, current_page: page, per_page: limit },
        });
      }
      const campaign = fake.campaigns.get(parts[1] ?? "");
      if (!campaign) return send(res, 404, { message: "Resource not found." });
      if (parts.length === 2 && method === "GET") return send(res, 200, { data: campaign });
      if (parts[2] === "schedule" && method === "POST") {
        if (body.delivery === "instant") campaign.status = "sent";
        else if (body.delivery === "scheduled" && body.schedule) {
          campaign.status = "ready";
          const schedule = body.schedule as { date: string; hours: string; minutes: string };
          campaign.scheduled_for = `${schedule.date} ${schedule.hours}:${schedule.minutes}:00`;
        } else return invalid(res, { delivery: ["The selected delivery is invalid."] });
        return send(res, 200, { data: campaign });
      }
    }
    return send(res, 404, { message: "Resource not found." });
  }

  const server = createServer((req, res) => {
    handle(req, res).catch(() => send(res, 500, { message: "Server Error" }));
  });
  const port = await new Promise<number>((resolve) => {
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      resolve(typeof address === "object" && address ? address.port : 0);
    });
  });
  return Object.assign(fake, {
    url: `http://127.0.0.1:${port}/api`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }) as FakeMailerLite;
}
