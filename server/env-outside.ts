import { z } from "zod";

/*
 * The settings of the outside services Herald talks to on a tenant's behalf (LinkedIn, an LLM
 * endpoint), part of the one environment schema in server/env.ts.
 */

/** An empty variable counts as unset (a blank line in a .env file, `FOO= node server.js`). */
export const unsetWhenEmpty = (value: unknown) => (value === "" ? undefined : value);

export const outsideServicesEnv = {
  /** LinkedIn publishing (README, "Social and LinkedIn"): the app's OAuth client; unset: off. */
  LINKEDIN_CLIENT_ID: z.preprocess(unsetWhenEmpty, z.string().optional()),
  LINKEDIN_CLIENT_SECRET: z.preprocess(unsetWhenEmpty, z.string().optional()),
  /** Where staff are sent to authorise Herald (…/oauth/v2/authorization) and tokens are asked for. */
  LINKEDIN_AUTH_BASE: z.preprocess(
    unsetWhenEmpty,
    z.url({ protocol: /^https?$/ }).default("https://www.linkedin.com"),
  ),
  /** LinkedIn's REST API (…/rest/posts, /rest/images, /v2/userinfo); a test points it at a fake. */
  LINKEDIN_API_BASE: z.preprocess(
    unsetWhenEmpty,
    z.url({ protocol: /^https?$/ }).default("https://api.linkedin.com"),
  ),
  /** The LinkedIn-Version header (YYYYMM) of every REST call. */
  LINKEDIN_VERSION: z.preprocess(
    unsetWhenEmpty,
    z
      .string()
      .regex(/^\d{6}$/, "must be a LinkedIn API version such as 202510")
      .default("202510"),
  ),
  /** A post claimed this long ago by a worker that went silent is taken up again (crash recovery). */
  LINKEDIN_STALE_MS: z.coerce.number().int().min(100).default(120_000),
  /**
   * An OpenAI-compatible chat-completions endpoint for drafts in the leader's voice (decision 047):
   * the base URL (…/v1, Ollama's http://127.0.0.1:11434/v1), the model, and a key when it wants
   * one. Off unless LLM_BASE_URL and LLM_MODEL are both set.
   */
  LLM_BASE_URL: z.preprocess(unsetWhenEmpty, z.url().optional()),
  LLM_MODEL: z.preprocess(unsetWhenEmpty, z.string().max(200).optional()),
  LLM_API_KEY: z.preprocess(unsetWhenEmpty, z.string().max(500).optional()),
  /** How long a draft may take, in milliseconds (default 30 s). */
  LLM_TIMEOUT_MS: z.preprocess(
    unsetWhenEmpty,
    z.coerce.number().int().min(1000).max(600_000).default(30_000),
  ),
};
