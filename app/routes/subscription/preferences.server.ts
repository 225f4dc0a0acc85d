// The loader and action of preferences.tsx.
import type { SubmissionResult } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "react-router";
import { z } from "zod";
import { scopeOf } from "../../../server/http/context";
import { MESSAGES } from "../../../server/subscribers/errors";
import { applyPreferenceChange, findSubscriber } from "../../../server/subscribers/subscribers";
import { emailField } from "../../../shared/schemas/email";
import { lookupSchema, PREFERENCES_PATH as PATH } from "../../../shared/schemas/preferences";
import type { CentreData } from "../../components/preference-centre";
import type { Route } from "./+types/preferences";
import {
  failureOf,
  GENERIC_FAILURE,
  loadCentre,
  lookupRateLimit,
  RATE_LIMITED,
  rateKey,
  sendVerification,
} from "./subscription.server";

const sendSchema = z.object({
  email: emailField(),
  lists: z.array(z.string().max(100)).max(50),
});

const applySchema = z.object({
  email: z.string().trim().min(1).max(254),
  token: z.string().min(1).max(200),
});

interface PreferencesData {
  /** the emailed link (?email&token) was opened: one click applies the pending change */
  apply: { email: string; token: string; error: string | null } | null;
  lookup: SubmissionResult<string[]> | null;
  centre: CentreData | null;
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const ctx = scopeOf(context);
  const scope = scopeOf(context);
  const query = new URL(request.url).searchParams;
  const answer = (body: Omit<PreferencesData, "apply">, status = 200) =>
    data<PreferencesData>({ apply: null, ...body }, { status });

  // The link in the verification email. Applying changes state, so it waits for a POST: mail
  // scanners that fetch every link must not apply (or spend) the change.
  if (query.has("token")) {
    const email = query.get("email")?.trim() ?? "";
    const token = query.get("token") ?? "";
    const usable = email !== "" && token !== "";
    return data<PreferencesData>(
      {
        apply: { email, token, error: usable ? null : MESSAGES.invalidLink },
        lookup: null,
        centre: null,
      },
      { status: usable ? 200 : 400 },
    );
  }

  if (!query.has("email")) return answer({ lookup: null, centre: null });
  const submission = parseWithZod(query, { schema: lookupSchema });
  if (submission.status !== "success") {
    return answer({ lookup: submission.reply(), centre: null }, 400);
  }
  const refuse = (message: string, status: number) =>
    answer({ lookup: submission.reply({ formErrors: [message] }), centre: null }, status);
  if (!(await lookupRateLimit.take(rateKey(ctx, scope.clientAddress)))) {
    return refuse(RATE_LIMITED, 429);
  }
  try {
    const subscriber = await findSubscriber(ctx, submission.value.email);
    if (!subscriber) return refuse(MESSAGES.notFound, 404);
    return answer({ lookup: submission.reply(), centre: await loadCentre(ctx, subscriber, query) });
  } catch (error) {
    const failure = failureOf(ctx, error, MESSAGES.loadFailed);
    return refuse(failure.message, failure.status);
  }
}

export type ActionData = { intent: "send" | "apply"; error: string };

export async function action({ request, context }: Route.ActionArgs) {
  const ctx = scopeOf(context);
  const scope = scopeOf(context);
  const form = await request.formData();
  const refuse = (intent: ActionData["intent"], error: string, status: number) =>
    data<ActionData>({ intent, error }, { status });

  if (form.get("intent") === "apply") {
    const input = applySchema.safeParse({ email: form.get("email"), token: form.get("token") });
    if (!input.success) return refuse("apply", MESSAGES.invalidLink, 400);
    try {
      await applyPreferenceChange(ctx, input.data);
    } catch (error) {
      const failure = failureOf(ctx, error, GENERIC_FAILURE);
      return refuse("apply", failure.message, failure.status);
    }
    return redirect(`${PATH}?${new URLSearchParams({ email: input.data.email, updated: "1" })}`);
  }

  if (form.get("intent") === "send") {
    const input = sendSchema.safeParse({ email: form.get("email"), lists: form.getAll("list") });
    if (!input.success) return refuse("send", MESSAGES.notFound, 400);
    const failure = await sendVerification(ctx, scope.clientAddress, {
      email: input.data.email,
      activeLists: input.data.lists,
    });
    if (failure) return refuse("send", failure.message, failure.status);
    return redirect(`${PATH}?${new URLSearchParams({ email: input.data.email, sent: "1" })}`);
  }

  return refuse("send", GENERIC_FAILURE, 400);
}
