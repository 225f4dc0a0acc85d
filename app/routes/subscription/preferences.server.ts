// The loader and action of preferences.tsx.
import type { SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "react-router";
import { scopeOf } from "../../../server/http/context";
import { MESSAGES } from "../../../server/subscribers/errors";
import { signedPreferencesPath } from "../../../server/subscribers/links";
import { applyPreferenceChange } from "../../../server/subscribers/preferences";
import { lookupSchema, PREFERENCES_PATH as PATH } from "../../../shared/schemas/preferences";
import { z } from "../../../shared/zod";
import type { Route } from "./+types/preferences";
import {
  failureOf,
  GENERIC_FAILURE,
  lookupRateLimit,
  RATE_LIMITED,
  rateKey,
  sendLinkQuietly,
} from "./subscription.server";

const applySchema = z.object({
  email: z.string().trim().min(1).max(254),
  token: z.string().min(1).max(200),
});

/**
 * /subscription/preferences. 'Find Your Subscription' mails the address a signed link to its
 * preference centre (/preferences/{token}) and says the same words whether or not it is subscribed:
 * the page itself shows nobody's lists (docs/decisions/015-subscriber-privacy.md). ?email= only fills the form in.
 */
export type PreferencesView =
  /** the emailed verification link (?email&token) was opened: one click applies the pending change */
  | { view: "apply"; email: string; token: string; error: string | null }
  | { view: "lookup"; email: string; sent: boolean };

export async function loader({ url }: Route.LoaderArgs) {
  const query = url.searchParams;
  const email = (query.get("email") ?? "").trim().slice(0, 254);
  // Applying changes state, so it waits for a POST: mail scanners that fetch every link must not
  // apply (or spend) the change.
  if (query.has("token")) {
    const token = query.get("token") ?? "";
    const usable = email !== "" && token !== "";
    return data<PreferencesView>(
      { view: "apply", email, token, error: usable ? null : MESSAGES.invalidLink },
      { status: usable ? 200 : 400 },
    );
  }
  return data<PreferencesView>({ view: "lookup", email, sent: query.get("sent") === "1" });
}

export type ActionData =
  | { intent: "apply"; error: string }
  | { intent: "lookup"; result: SubmissionResult<string[]> };

export async function action({ request, context }: Route.ActionArgs) {
  const ctx = scopeOf(context);
  const form = await request.formData();

  if (form.get("intent") === "apply") {
    const refuse = (error: string, status: number) =>
      data<ActionData>({ intent: "apply", error }, { status });
    const input = applySchema.safeParse({ email: form.get("email"), token: form.get("token") });
    if (!input.success) return refuse(MESSAGES.invalidLink, 400);
    try {
      const subscriber = await applyPreferenceChange(ctx, input.data);
      return redirect(`${signedPreferencesPath(ctx, subscriber.id)}?updated=1`);
    } catch (error) {
      const failure = failureOf(ctx, error, GENERIC_FAILURE);
      return refuse(failure.message, failure.status);
    }
  }

  const submission = parseWithZod(form, { schema: lookupSchema });
  const reply = (result: SubmissionResult<string[]>, status: number) =>
    data<ActionData>({ intent: "lookup", result }, { status });
  if (submission.status !== "success") return reply(submission.reply(), 400);
  if (!(await lookupRateLimit.take(rateKey(ctx, ctx.clientAddress)))) {
    return reply(submission.reply({ formErrors: [RATE_LIMITED] }), 429);
  }
  await sendLinkQuietly(ctx, submission.value.email, "preferences");
  return redirect(`${PATH}?sent=1`);
}
