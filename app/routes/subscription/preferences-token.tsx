import { data, redirect } from "react-router";
import { scopeOf } from "../../../server/http/context";
import { MESSAGES } from "../../../server/subscribers/errors";
import { subscriberFromToken } from "../../../server/subscribers/links";
import type { SubscriberView } from "../../../server/subscribers/subscribers";
import { z } from "../../../shared/zod";
import { type CentreData, PreferenceCentre } from "../../components/preference-centre";
import {
  Notice,
  Panel,
  SubscriptionPage,
  secondaryButton,
  subscriptionMeta,
} from "../../components/subscription-page";
import { Link } from "../../lib/page-scripts";
import type { Route } from "./+types/preferences-token";
import { failureOf, loadCentre, sendVerification } from "./subscription.server";

/**
 * /preferences/{token}: the preference centre of the subscriber a signed "preferences" token names
 * (the link in every list mail, or one sent from the lookup form), without the email lookup.
 * Changes still go through the emailed verification link (SPEC §6), since this link lives as long as
 * the mail that carries it.
 */
const sendSchema = z.object({ lists: z.array(z.string().max(100)).max(50) });

export const meta: Route.MetaFunction = (args) =>
  subscriptionMeta(
    args,
    args.data?.centre ? "Manage your subscription" : "Preference link not valid",
    "preferences",
  );

// Plain forms and the form enhancements, no app JavaScript (decision 044), like the other
// subscription pages.
export { handle, headers } from "../../components/subscription-page";

export async function loader({ params, url, context }: Route.LoaderArgs) {
  const ctx = scopeOf(context);
  const subscriber = await subscriberFromToken(ctx, params.token, "preferences");
  if (!subscriber) return data<{ centre: CentreData | null }>({ centre: null }, { status: 404 });
  const centre = await loadCentre(ctx, subscriber, url.searchParams);
  return data<{ centre: CentreData | null }>({ centre });
}

export async function action({ params, request, context }: Route.ActionArgs) {
  const ctx = scopeOf(context);
  const scope = scopeOf(context);
  let subscriber: SubscriberView | null;
  try {
    subscriber = await subscriberFromToken(ctx, params.token, "preferences");
  } catch (error) {
    const failure = failureOf(ctx, error, MESSAGES.loadFailed);
    return data({ error: failure.message }, { status: failure.status });
  }
  if (!subscriber) return data({ error: MESSAGES.invalidLink }, { status: 404 });
  const form = await request.formData();
  const input = sendSchema.safeParse({ lists: form.getAll("list") });
  if (form.get("intent") !== "send" || !input.success) {
    return data({ error: MESSAGES.verificationNotSent }, { status: 400 });
  }
  const failure = await sendVerification(ctx, scope.clientAddress, {
    email: subscriber.email,
    activeLists: input.data.lists,
  });
  if (failure) return data({ error: failure.message }, { status: failure.status });
  return redirect(`/preferences/${params.token}?sent=1`);
}

export default function PreferencesByToken({
  loaderData,
  actionData,
  params,
}: Route.ComponentProps) {
  const { centre } = loaderData;
  if (!centre) {
    return (
      <SubscriptionPage title="Preference link not valid" footer="privacy-and-site">
        <Panel>
          <Notice tone="error" title="This preference link is not valid.">
            It may have been copied incompletely, or it belongs to another site. You can still find
            your subscription with your email address.
          </Notice>
          <p className="mt-5">
            <Link to="/subscription/preferences" className={secondaryButton}>
              Find Your Subscription
            </Link>
          </p>
        </Panel>
      </SubscriptionPage>
    );
  }
  return (
    <SubscriptionPage
      title="Manage your subscription"
      lead="Choose which of our newsletters you receive. Changes take effect once you confirm them from the email we send you."
      footer="privacy-and-site"
    >
      <PreferenceCentre
        centre={centre}
        path={`/preferences/${params.token}`}
        sendError={actionData?.error ?? null}
      />
      <Panel>
        <h2 className="text-lg font-bold">Your data</h2>
        <p className="mt-1">
          Download what we hold about you — your address, lists, sign-up record and the emails we
          sent you — as a JSON file.
        </p>
        <p className="mt-3">
          <a href={`/preferences/${params.token}/data.json`} download className={secondaryButton}>
            Download my data
          </a>
        </p>
      </Panel>
    </SubscriptionPage>
  );
}
