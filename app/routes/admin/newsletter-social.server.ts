// The loader and action of newsletter-social.tsx.
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "react-router";
import { requireTenantAccess } from "../../../server/auth/guards";
import { scopeOf } from "../../../server/http/context";
import { llmConfigOf } from "../../../server/llm/client";
import { NewsletterNotFoundError } from "../../../server/newsletters/errors";
import { getNewsletter } from "../../../server/newsletters/listing";
import { packImageViews } from "../../../server/social/bundle";
import { resetSocialTexts, saveSocialTexts, socialPackOf } from "../../../server/social/pack";
import { NEWSLETTER_NOT_FOUND as NOT_FOUND } from "../../../shared/newsletters";
import {
  SOCIAL_MESSAGES,
  socialIntentSchema,
  socialTextsSchema,
} from "../../../shared/schemas/social";
import type { Route } from "./+types/newsletter-social";

const notFound = () => data({ message: NOT_FOUND }, { status: 404 });
const socialPath = (id: string) => `/admin/newsletter/social/${id}`;

/** /admin/newsletter/social/:id — a newsletter's social pack: its two posts and its images. */
export async function loader({ url, params, context }: Route.LoaderArgs) {
  requireTenantAccess(context);
  const scope = scopeOf(context);
  const newsletter = await getNewsletter(scope, params.id);
  if (!newsletter) throw notFound();
  const done = url.searchParams.get("done");
  return {
    id: newsletter.id,
    title: newsletter.title,
    status: newsletter.status,
    texts: await socialPackOf(scope, newsletter),
    images: await packImageViews(scope, newsletter),
    notice: done === "saved" || done === "reset" ? SOCIAL_MESSAGES[done] : null,
    /** "Draft the LinkedIn post" is offered only with a language model set (decision 047) */
    llmOn: llmConfigOf(scope.env) !== null,
  };
}

async function run<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof NewsletterNotFoundError) throw notFound();
    throw error;
  }
}

/** intent=save with `linkedIn` and `short` (staff's words, or a draft put in the form), or intent=reset. */
export async function action({ request, params, context }: Route.ActionArgs) {
  const user = requireTenantAccess(context);
  const scope = scopeOf(context);
  const formData = await request.formData();
  const intent = socialIntentSchema.safeParse(formData.get("intent") ?? "save");
  if (!intent.success) {
    return data(
      { errors: ["Unknown action."], invalid: [] as string[], linkedIn: null, short: null },
      { status: 400 },
    );
  }
  if (intent.data === "reset") {
    await run(() => resetSocialTexts(scope, params.id));
    scope.logger.info({ actor: user.id, newsletterId: params.id }, "social posts reset");
    throw redirect(`${socialPath(params.id)}?done=reset`, 303);
  }
  const submission = parseWithZod(formData, { schema: socialTextsSchema });
  if (submission.status !== "success") {
    const byField = Object.entries(submission.error ?? {}).filter(
      ([, messages]) => messages?.length,
    );
    const errors = byField.flatMap(([, messages]) => messages ?? []);
    // Only the fields at fault are marked: a fine short post beside an overlong LinkedIn one is not.
    const invalid = byField.map(([name]) => name);
    const typed = (name: string) => String(formData.get(name) ?? "");
    return data(
      { errors, invalid, linkedIn: typed("linkedIn"), short: typed("short") },
      { status: 400 },
    );
  }
  await run(() => saveSocialTexts(scope, params.id, submission.value));
  scope.logger.info({ actor: user.id, newsletterId: params.id }, "social posts saved");
  throw redirect(`${socialPath(params.id)}?done=saved`, 303);
}
