import { getFormProps, getInputProps, type SubmissionResult, useForm } from "@conform-to/react";
import { getZodConstraint, parseWithZod } from "@conform-to/zod/v4";
import { data, Form, Link, redirect, useNavigation } from "react-router";
import { z } from "zod";
import { requestContext } from "../../../server/http/context";
import { subscriptionContextFrom } from "../../../server/subscribers/context";
import { MESSAGES } from "../../../server/subscribers/errors";
import { applyPreferenceChange, findSubscriber } from "../../../server/subscribers/subscribers";
import { emailField } from "../../../shared/schemas/email";
import { type CentreData, PreferenceCentre } from "../../components/preference-centre";
import {
  Notice,
  Panel,
  primaryButton,
  SubscriptionPage,
  subscriptionHeaders,
  subscriptionMeta,
} from "../../components/subscription-page";
import { FieldShell, TextInput } from "../../components/ui/form";
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

const PATH = "/subscription/preferences";

/** 'Find Your Subscription': a GET form, so the lookup works without JavaScript and can be bookmarked. */
const lookupSchema = z.object({ email: emailField() });

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

export const meta: Route.MetaFunction = (args) =>
  subscriptionMeta(args, {
    title: args.data?.apply ? "Confirm your changes" : "Manage your subscription",
    description: "Choose which newsletters you receive, or unsubscribe from all of them.",
  });

export const headers = subscriptionHeaders;

export async function loader({ request, context }: Route.LoaderArgs) {
  const ctx = subscriptionContextFrom(context);
  const scope = context.get(requestContext);
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

type ActionData = { intent: "send" | "apply"; error: string };

export async function action({ request, context }: Route.ActionArgs) {
  const ctx = subscriptionContextFrom(context);
  const scope = context.get(requestContext);
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

export default function Preferences({ loaderData, actionData }: Route.ComponentProps) {
  const { apply, lookup, centre } = loaderData;
  if (apply) {
    return (
      <ApplyChanges
        email={apply.email}
        token={apply.token}
        error={apply.error ?? (actionData?.intent === "apply" ? actionData.error : null)}
      />
    );
  }
  return (
    <SubscriptionPage
      title="Manage your subscription"
      lead="Choose which of our newsletters you receive. Changes take effect once you confirm them from the email we send you."
      footer="privacy-and-site"
    >
      <Lookup
        // A new answer from the server starts the form afresh (its value and its errors).
        key={JSON.stringify(lookup)}
        lastResult={lookup}
        email={centre?.email}
      />
      {centre ? (
        <PreferenceCentre
          key={JSON.stringify([centre.email, centre.step, centre.selection, centre.current])}
          centre={centre}
          path={PATH}
          identity={{ email: centre.email }}
          sendError={actionData?.intent === "send" ? actionData.error : null}
        />
      ) : null}
    </SubscriptionPage>
  );
}

function Lookup({
  lastResult,
  email,
}: {
  lastResult: SubmissionResult<string[]> | null;
  email?: string;
}) {
  const navigation = useNavigation();
  const [form, fields] = useForm({
    id: "lookup",
    lastResult,
    defaultValue: email ? { email } : undefined,
    constraint: getZodConstraint(lookupSchema),
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) => parseWithZod(formData, { schema: lookupSchema }),
  });
  // SPEC §4 'loading': the lookup form's own submission is on its way.
  const loading =
    navigation.state !== "idle" &&
    navigation.formMethod?.toUpperCase() === "GET" &&
    navigation.formData?.has("email") === true &&
    !navigation.formData.has("intent");

  return (
    <Panel labelledBy="lookup-heading">
      <h2 id="lookup-heading" className="text-xl font-bold sm:text-2xl">
        Find Your Subscription
      </h2>
      <p className="mt-1">Enter the email address you subscribed with.</p>
      <Form method="get" action={PATH} className="mt-4 space-y-4" {...getFormProps(form)}>
        {form.errors?.length ? (
          <div id={form.errorId}>
            <Notice tone="error">{form.errors.join(" ")}</Notice>
          </div>
        ) : null}
        <FieldShell id={fields.email.id} label="Email address" errors={fields.email.errors}>
          <div className="flex flex-col gap-3 sm:flex-row">
            <TextInput
              {...getInputProps(fields.email, { type: "email" })}
              autoComplete="email"
              className="sm:flex-1"
            />
            <button type="submit" className={primaryButton} aria-disabled={loading || undefined}>
              {loading ? "Searching…" : "Find Subscription"}
            </button>
          </div>
        </FieldShell>
      </Form>
    </Panel>
  );
}

/** The emailed verification link: one POST applies the pending change (SPEC §4). */
function ApplyChanges({
  email,
  token,
  error,
}: {
  email: string;
  token: string;
  error: string | null;
}) {
  const navigation = useNavigation();
  const applying = navigation.state === "submitting";
  return (
    <SubscriptionPage
      title="Confirm your changes"
      lead="You asked to change which newsletters you receive. One click applies the change."
      footer="privacy-and-site"
    >
      <Panel labelledBy="apply-heading">
        <h2 id="apply-heading" className="text-xl font-bold sm:text-2xl">
          Apply your new preferences
        </h2>
        {email ? (
          <p className="mt-2 break-words">
            For <strong>{email}</strong>
          </p>
        ) : null}
        {error ? (
          <div className="mt-5 space-y-4">
            <Notice tone="error">{error}</Notice>
            <p>
              <Link
                to={email ? `${PATH}?${new URLSearchParams({ email })}` : PATH}
                className="font-semibold"
              >
                Find Your Subscription
              </Link>{" "}
              to make your changes again; we will send you a new link.
            </p>
          </div>
        ) : (
          <Form method="post" className="mt-5">
            <input type="hidden" name="intent" value="apply" />
            <input type="hidden" name="email" value={email} />
            <input type="hidden" name="token" value={token} />
            <button type="submit" className={primaryButton} aria-disabled={applying || undefined}>
              {applying ? "Applying…" : "Confirm my changes"}
            </button>
            <p className="mt-4 text-sm opacity-85">
              We ask for this click so that programs which open links in your mailbox cannot change
              your subscriptions for you.
            </p>
          </Form>
        )}
      </Panel>
    </SubscriptionPage>
  );
}
