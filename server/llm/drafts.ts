import { tenantDb } from "../db/tenant-guard";
import { createRateLimit } from "../http/rate-limit";
import { getNewsletter } from "../newsletters/listing";
import { textOfHtml } from "../newsletters/sanitize";
import type { Scope, TenantScope } from "../scope";
import { type ChatMessage, chatCompletion, LLM_OFF_MESSAGE, LlmError, llmConfigOf } from "./client";
import { voiceNotesOf } from "./voice";

/**
 * Drafts in the leader's voice (issue 36, target 4; decision 047): "Suggest a subject line" and
 * "Draft the LinkedIn post". The prompt is the tenant's voice notes, its three most recent
 * published newsletters (trimmed) as examples, and the newsletter at hand. What comes back is only
 * ever put into an editable field: nothing here saves, sends or publishes.
 */
export const EXAMPLES = 3;
/** Characters of each example's text, and of the newsletter at hand. */
const EXAMPLE_CHARS = 1500;
const CURRENT_CHARS = 6000;
export const MAX_SUGGESTIONS = 5;
/** LinkedIn's own limit for a post. */
export const LINKEDIN_POST_MAX = 3000;

// Each call costs the tenant money or a local GPU's minute: 20 drafts a staff member per 10 minutes.
const drafts = createRateLimit({ name: "llm-drafts", points: 20, windowSeconds: 600 });
export const DRAFTS_RATE_LIMITED =
  "Too many drafts asked for in a short time. Wait a few minutes and try again.";

/** Takes one of the staff member's drafts; false when they asked for too many lately. */
export function takeDraftAllowance(tenantId: string, actor: string): Promise<boolean> {
  return drafts.take(`${tenantId}:${actor}`);
}

export type DraftScope = TenantScope & Pick<Scope, "tenant" | "env" | "origin">;

interface Example {
  title: string;
  text: string;
}

function trimmed(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max);
  const space = cut.lastIndexOf(" ");
  return `${space > max * 0.8 ? cut.slice(0, space) : cut} …`;
}

/** The tenant's most recent published newsletters other than `exceptId`, as examples. */
async function recentExamples(ctx: TenantScope, exceptId: string): Promise<Example[]> {
  const rows = await tenantDb(ctx.db, ctx.tenantId)
    .selectFrom("newsletters")
    .select(["title", "excerpt", "content"])
    .where("status", "=", "published")
    .where("id", "!=", exceptId)
    .orderBy("published_at", "desc")
    .orderBy("id", "desc")
    .limit(EXAMPLES)
    .execute();
  return rows.map((row) => ({
    title: row.title,
    text: trimmed(textOfHtml(`${row.excerpt} ${row.content}`), EXAMPLE_CHARS),
  }));
}

/** The messages of one request: what the tenant sounds like, the examples, the task. */
export function promptFor(input: {
  company: string;
  voiceNotes: string;
  examples: Example[];
  current: Example;
  task: string;
}): ChatMessage[] {
  const system = [
    `You write for ${input.company}, in the voice of its leader.`,
    input.voiceNotes
      ? `Voice notes from the team:\n${input.voiceNotes}`
      : "There are no voice notes: follow the examples' tone.",
    "Write plainly, with no hashtags unless the voice notes ask for them, and never invent facts that are not in the newsletter.",
  ].join("\n\n");
  const examples = input.examples
    .map((example, index) => `Example ${index + 1}: ${example.title}\n${example.text}`)
    .join("\n\n");
  const user = [
    examples ? `Recent newsletters, as examples of the voice:\n\n${examples}` : "",
    `The newsletter at hand: ${input.current.title}\n${input.current.text}`,
    input.task,
  ]
    .filter(Boolean)
    .join("\n\n---\n\n");
  return [
    { role: "system", content: system },
    { role: "user", content: user },
  ];
}

async function ask(
  ctx: DraftScope,
  newsletterId: string,
  task: string,
  temperature: number,
): Promise<{ answer: string; slug: string }> {
  const config = llmConfigOf(ctx.env);
  if (!config) throw new LlmError(LLM_OFF_MESSAGE, 422);
  const newsletter = await getNewsletter(ctx, newsletterId);
  if (!newsletter) throw new LlmError("No such newsletter.", 422);
  const [voiceNotes, examples] = await Promise.all([
    voiceNotesOf(ctx.db, ctx.tenantId),
    recentExamples(ctx, newsletter.id),
  ]);
  const messages = promptFor({
    company: ctx.tenant.branding.companyName,
    voiceNotes,
    examples,
    current: {
      title: newsletter.title,
      text: trimmed(textOfHtml(`${newsletter.excerpt} ${newsletter.content}`), CURRENT_CHARS),
    },
    task,
  });
  return { answer: await chatCompletion(config, messages, { temperature }), slug: newsletter.slug };
}

/** A few subject lines to pick from (at most MAX_SUGGESTIONS, each at most 150 characters). */
export async function suggestSubjectLines(
  ctx: DraftScope,
  newsletterId: string,
): Promise<string[]> {
  const { answer } = await ask(
    ctx,
    newsletterId,
    `Suggest ${MAX_SUGGESTIONS} email subject lines for this newsletter, each under 80 characters. Answer with the subject lines only, one per line, without numbers or quotes.`,
    0.8,
  );
  const lines = answer
    .split("\n")
    .map((line) =>
      line
        .replace(/^\s*(?:[-*•]|\d+[.)])\s*/, "")
        .replace(/^["“']+|["”']+$/g, "")
        .trim(),
    )
    .filter((line) => line.length > 0 && line.length <= 150);
  const unique = [...new Set(lines)].slice(0, MAX_SUGGESTIONS);
  if (unique.length === 0) {
    throw new LlmError("The language model's answer held no subject line. Try again.", 502);
  }
  return unique;
}

/** A LinkedIn post about the newsletter, ending with its link (utm_source=linkedin). */
export async function draftLinkedInPost(ctx: DraftScope, newsletterId: string): Promise<string> {
  const { answer, slug } = await ask(
    ctx,
    newsletterId,
    "Draft a LinkedIn post, in the leader's first person, that makes the reader want to read this newsletter: a strong first line, two or three short paragraphs, at most 1,200 characters. Do not include a link (it is added below the post). Answer with the post only.",
    0.7,
  );
  // The link as the social pack writes it: LinkedIn's views count under LinkedIn (decision 047).
  const link = new URL(`/newsletter/${slug}`, ctx.origin);
  link.searchParams.set("utm_source", "linkedin");
  link.searchParams.set("utm_medium", "social");
  link.searchParams.set("utm_campaign", slug);
  return `${trimmed(answer, LINKEDIN_POST_MAX - 400)}\n\nRead it here: ${link}`;
}
