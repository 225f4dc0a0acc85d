import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/**
 * A local OpenAI-compatible chat-completions endpoint, written from OpenAI's published API
 * reference (POST {base}/chat/completions; body { model, messages: [{ role, content }],
 * temperature }; `Authorization: Bearer KEY`; answer { id, object: "chat.completion", created,
 * model, choices: [{ index, message: { role: "assistant", content }, finish_reason }], usage }).
 *
 * It checks each request as the real service would: the path, the JSON body, the model, every
 * message's role and content, and the key when one is expected (401 in OpenAI's error shape
 * otherwise). Modes stand for the failures Herald must explain: an HTTP error, an answer that is
 * not JSON, and an answer that never comes.
 */
export type FakeLlmMode =
  | { kind: "answer"; content: string }
  | { kind: "status"; status: number }
  | { kind: "not-json" }
  | { kind: "slow" };

export interface FakeLlmRequest {
  path: string;
  authorization: string | null;
  body: {
    model?: unknown;
    messages?: { role: string; content: string }[];
    temperature?: unknown;
  };
}

export interface FakeLlm {
  /** the base URL Herald's LLM_BASE_URL names (…/v1) */
  baseUrl: string;
  /** every request that reached the endpoint, checked or not */
  requests: FakeLlmRequest[];
  /** what each request that passed the checks gets */
  mode: FakeLlmMode;
  close(): Promise<void>;
}

const ROLES = new Set(["system", "user", "assistant"]);

function openAiError(res: ServerResponse, status: number, message: string, code: string) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ error: { message, type: "invalid_request_error", code } }));
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startFakeLlm(options: { model: string; apiKey: string | null }) {
  const slowAnswers = new Set<ServerResponse>();
  const fake: FakeLlm = {
    baseUrl: "",
    requests: [],
    mode: { kind: "answer", content: "A draft." },
    close: async () => {},
  };
  const server: Server = createServer(async (req, res) => {
    const text = await readBody(req);
    let body: FakeLlmRequest["body"] = {};
    try {
      body = JSON.parse(text);
    } catch {
      // checked below
    }
    fake.requests.push({
      path: req.url ?? "",
      authorization: req.headers.authorization ?? null,
      body,
    });
    if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
      return openAiError(res, 404, `Unknown request URL: ${req.method} ${req.url}`, "unknown_url");
    }
    if (options.apiKey && req.headers.authorization !== `Bearer ${options.apiKey}`) {
      return openAiError(res, 401, "Incorrect API key provided.", "invalid_api_key");
    }
    if (!text || typeof body !== "object" || body === null) {
      return openAiError(res, 400, "We could not parse the JSON body of your request.", "bad_json");
    }
    if (body.model !== options.model) {
      return openAiError(
        res,
        404,
        `The model '${String(body.model)}' does not exist`,
        "model_not_found",
      );
    }
    const messages = body.messages;
    if (
      !Array.isArray(messages) ||
      messages.length === 0 ||
      !messages.every(
        (message) =>
          ROLES.has(message?.role) && typeof message.content === "string" && message.content,
      )
    ) {
      return openAiError(res, 400, "Invalid 'messages'.", "invalid_messages");
    }
    if (
      body.temperature !== undefined &&
      (typeof body.temperature !== "number" || body.temperature < 0 || body.temperature > 2)
    ) {
      return openAiError(res, 400, "Invalid 'temperature'.", "invalid_temperature");
    }
    const mode = fake.mode;
    if (mode.kind === "status") {
      return openAiError(res, mode.status, `Fake failure ${mode.status}`, "fake_failure");
    }
    if (mode.kind === "not-json") {
      res.writeHead(200, { "content-type": "text/html" });
      return res.end("<html><body>Bad gateway</body></html>");
    }
    if (mode.kind === "slow") {
      // Never answers; closed when the client gives up or the fake stops.
      slowAnswers.add(res);
      res.on("close", () => slowAnswers.delete(res));
      return;
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(
      JSON.stringify({
        id: `chatcmpl-${fake.requests.length}`,
        object: "chat.completion",
        created: Math.floor(Date.now() / 1000),
        model: options.model,
        choices: [
          {
            index: 0,
            message: { role: "assistant", content: mode.content },
            finish_reason: "stop",
          },
        ],
        usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  fake.baseUrl = `http://127.0.0.1:${port}/v1`;
  fake.close = () =>
    new Promise<void>((resolve) => {
      for (const res of slowAnswers) res.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}
