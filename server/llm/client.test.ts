import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FakeLlm, startFakeLlm } from "../../tests/support/fake-llm";
import { scaled } from "../../tests/support/timing";
import { chatCompletion, type LlmConfig, LlmError, llmConfigOf } from "./client";

describe("the LLM setting", () => {
  it("is off unless both LLM_BASE_URL and LLM_MODEL are set", () => {
    const timeout = { LLM_TIMEOUT_MS: 30_000 };
    expect(llmConfigOf({ ...timeout, LLM_BASE_URL: "http://x/v1" })).toBeNull();
    expect(llmConfigOf({ ...timeout, LLM_MODEL: "m" })).toBeNull();
    expect(llmConfigOf({ ...timeout, LLM_BASE_URL: "http://x/v1/", LLM_MODEL: "m" })).toEqual({
      baseUrl: "http://x/v1",
      model: "m",
      apiKey: null,
      timeoutMs: 30_000,
    });
  });
});

/** The real client against the local fake endpoint (tests/support/fake-llm.ts). */
describe("the chat-completions client", () => {
  let fake: FakeLlm;
  let config: LlmConfig;
  const messages = [
    { role: "system" as const, content: "You write plainly." },
    { role: "user" as const, content: "A subject line, please." },
  ];

  beforeAll(async () => {
    fake = await startFakeLlm({ model: "herald-test", apiKey: "sk-test" });
    config = {
      baseUrl: fake.baseUrl,
      model: "herald-test",
      apiKey: "sk-test",
      timeoutMs: scaled(10_000),
    };
  });
  afterAll(() => fake.close());

  const failure = async (run: Promise<unknown>) => {
    const error = await run.then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(LlmError);
    return error as LlmError;
  };

  it("sends the model, the messages, the temperature and the key, and reads the answer", async () => {
    fake.mode = { kind: "answer", content: "  Hello there  " };
    expect(await chatCompletion(config, messages, { temperature: 0.5 })).toBe("Hello there");
    const request = fake.requests.at(-1);
    expect(request?.path).toBe("/v1/chat/completions");
    expect(request?.authorization).toBe("Bearer sk-test");
    expect(request?.body).toMatchObject({ model: "herald-test", messages, temperature: 0.5 });
  });

  it("explains a wrong key, an unknown model, a busy or failing service", async () => {
    fake.mode = { kind: "answer", content: "unused" };
    expect(
      (await failure(chatCompletion({ ...config, apiKey: "sk-wrong" }, messages))).message,
    ).toMatch(/refused Herald's key \(HTTP 401\).*LLM_API_KEY/);
    expect((await failure(chatCompletion({ ...config, model: "nope" }, messages))).message).toMatch(
      /LLM_MODEL/,
    );
    fake.mode = { kind: "status", status: 429 };
    const busy = await failure(chatCompletion(config, messages));
    expect(busy.message).toMatch(/busy or over its quota \(HTTP 429\)/);
    expect(busy.status).toBe(503);
    fake.mode = { kind: "status", status: 503 };
    expect((await failure(chatCompletion(config, messages))).message).toBe(
      "The language model failed (HTTP 503). Try again in a few minutes.",
    );
  });

  it("explains an answer that is not JSON, a slow answer and no server", async () => {
    fake.mode = { kind: "not-json" };
    expect((await failure(chatCompletion(config, messages))).message).toMatch(/could not be read/);
    fake.mode = { kind: "slow" };
    const slow = await failure(chatCompletion({ ...config, timeoutMs: 1000 }, messages));
    expect(slow.message).toMatch(/did not answer within 1 second\./);
    expect(slow.status).toBe(504);
    const gone = await failure(
      chatCompletion({ ...config, baseUrl: "http://127.0.0.1:1/v1" }, messages),
    );
    expect(gone.message).toMatch(/could not be reached.*LLM_BASE_URL/);
  });
});
