import { plural } from "../../shared/format";
import { z } from "../../shared/zod";
import type { Env } from "../env";

/**
 * An OpenAI-compatible chat-completions client (issue 36, target 4; decision 047): POST
 * `${LLM_BASE_URL}/chat/completions` with { model, messages, temperature }, a bearer key when one is
 * set (local servers such as Ollama or vLLM need none), a time limit, and every failure turned
 * into a sentence staff can act on. Nothing here publishes or saves: callers get text back.
 */
export interface LlmConfig {
  baseUrl: string;
  model: string;
  apiKey: string | null;
  timeoutMs: number;
}

export interface ChatMessage {
  role: "system" | "user" | "assistant";
  content: string;
}

/** A failure staff can read as it is (the message), with the HTTP status the route answers. */
export class LlmError extends Error {
  constructor(
    message: string,
    readonly status: 422 | 429 | 502 | 503 | 504,
  ) {
    super(message);
  }
}

export const LLM_OFF_MESSAGE =
  "Drafting with a language model is off: the administrator sets LLM_BASE_URL and LLM_MODEL to turn it on.";

/** The endpoint, or null when drafting is off (LLM_BASE_URL or LLM_MODEL unset). */
export function llmConfigOf(
  env: Pick<Env, "LLM_BASE_URL" | "LLM_MODEL" | "LLM_API_KEY" | "LLM_TIMEOUT_MS">,
): LlmConfig | null {
  if (!env.LLM_BASE_URL || !env.LLM_MODEL) return null;
  return {
    baseUrl: env.LLM_BASE_URL.replace(/\/+$/, ""),
    model: env.LLM_MODEL,
    apiKey: env.LLM_API_KEY ?? null,
    timeoutMs: env.LLM_TIMEOUT_MS ?? 30_000,
  };
}

// What Herald reads of the answer: the first choice's message (OpenAI's schema; Ollama and vLLM
// answer the same).
const completionSchema = z.object({
  choices: z
    .array(z.object({ message: z.object({ content: z.string().nullable().optional() }) }))
    .min(1),
});

/** The largest answer read (a chat completion of a few hundred words is a few kilobytes). */
const MAX_ANSWER_BYTES = 1024 * 1024;

function statusMessage(status: number): LlmError {
  if (status === 401 || status === 403) {
    return new LlmError(
      `The language model refused Herald's key (HTTP ${status}): the administrator checks LLM_API_KEY.`,
      502,
    );
  }
  if (status === 404) {
    return new LlmError(
      "The language model's address or model was not found (HTTP 404): the administrator checks LLM_BASE_URL and LLM_MODEL.",
      502,
    );
  }
  if (status === 429) {
    return new LlmError(
      "The language model is busy or over its quota (HTTP 429). Wait a minute and try again.",
      503,
    );
  }
  if (status >= 500) {
    return new LlmError(
      `The language model failed (HTTP ${status}). Try again in a few minutes.`,
      502,
    );
  }
  return new LlmError(`The language model refused the request (HTTP ${status}).`, 502);
}

/** The text of one chat completion; throws LlmError with a plain message on any failure. */
export async function chatCompletion(
  config: LlmConfig,
  messages: ChatMessage[],
  options: { temperature?: number; maxTokens?: number } = {},
): Promise<string> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json",
  };
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
  let response: Response;
  try {
    response = await fetch(`${config.baseUrl}/chat/completions`, {
      method: "POST",
      headers,
      body: JSON.stringify({
        model: config.model,
        messages,
        temperature: options.temperature ?? 0.7,
        ...(options.maxTokens ? { max_tokens: options.maxTokens } : {}),
        stream: false,
      }),
      signal: AbortSignal.timeout(config.timeoutMs),
      redirect: "error",
    });
  } catch (error) {
    throw fetchFailure(error, config);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    throw statusMessage(response.status);
  }
  let text: string;
  try {
    text = await readLimited(response);
  } catch (error) {
    throw fetchFailure(error, config);
  }
  let parsed: z.infer<typeof completionSchema>;
  try {
    parsed = completionSchema.parse(JSON.parse(text));
  } catch {
    throw new LlmError(
      "The language model's answer could not be read (not a chat completion).",
      502,
    );
  }
  const content = parsed.choices[0]?.message.content?.trim() ?? "";
  if (!content) throw new LlmError("The language model answered with nothing. Try again.", 502);
  return content;
}

function fetchFailure(error: unknown, config: LlmConfig): LlmError {
  if (error instanceof LlmError) return error;
  const name = (error as { name?: string } | null)?.name;
  if (name === "TimeoutError" || name === "AbortError") {
    return new LlmError(
      `The language model did not answer within ${plural(Math.round(config.timeoutMs / 1000), "second")}. Try again, or ask the administrator about LLM_TIMEOUT_MS.`,
      504,
    );
  }
  return new LlmError(
    "The language model could not be reached: the administrator checks LLM_BASE_URL.",
    502,
  );
}

async function readLimited(response: Response): Promise<string> {
  const reader = response.body?.getReader();
  if (!reader) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel();
      throw new LlmError("The language model's answer was too long to read.", 502);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString("utf8");
}
