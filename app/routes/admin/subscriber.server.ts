// The loader and action of subscriber.tsx.
import { data, redirect } from "react-router";
import { requireTenantAccess } from "../../../server/auth/guards";
import { scopeOf } from "../../../server/http/context";
import { eraseSubscribers, unsubscribeByStaff } from "../../../server/subscribers/bulk-actions";
import { SubscriptionError } from "../../../server/subscribers/errors";
import { listFields } from "../../../server/subscribers/fields";
import { listTenantLists } from "../../../server/subscribers/lists";
import { editSubscriber } from "../../../server/subscribers/profile-edit";
import {
  PROFILE_MESSAGES,
  ProfileError,
  subscriberProfile,
} from "../../../server/subscribers/profiles";
import { readSubscriberForm } from "../../../shared/schemas/subscriber-fields";
import { z } from "../../../shared/zod";
import type { Route } from "./+types/subscriber";

const idSchema = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);

function subscriberId(raw: string): number {
  const parsed = idSchema.safeParse(raw);
  if (!parsed.success) throw data({ message: PROFILE_MESSAGES.notFound }, { status: 404 });
  return parsed.data;
}

async function load(context: Route.LoaderArgs["context"], id: number) {
  try {
    return await subscriberProfile(scopeOf(context), id);
  } catch (error) {
    if (error instanceof ProfileError)
      throw data({ message: error.message }, { status: error.status });
    throw error;
  }
}

const NOTICES: Record<string, string> = {
  active: "Subscriber added as active.",
  "opt-in": "Subscriber added; the double opt-in email is on its way.",
};

/** /admin/subscribers/:id — the profile: details, lists, fields, consent and timeline. */
export async function loader({ url, params, context }: Route.LoaderArgs) {
  requireTenantAccess(context);
  const { db, tenant } = scopeOf(context);
  const [profile, lists, fields] = await Promise.all([
    load(context, subscriberId(params.id)),
    listTenantLists(db, tenant),
    listFields(db, tenant.id),
  ]);
  const added = url.searchParams.get("added");
  return { profile, lists, fields, notice: added ? (NOTICES[added] ?? null) : null };
}

const intentSchema = z.enum(["save", "unsubscribe", "erase"]);

export async function action({ request, params, context }: Route.ActionArgs) {
  const user = requireTenantAccess(context);
  const id = subscriberId(params.id);
  const ctx = scopeOf(context);
  await load(context, id);
  const formData = await request.formData();
  const intent = intentSchema.safeParse(formData.get("intent"));
  const confirmed = formData.get("confirmed") === "yes";
  const answer = (
    body: { message?: string; notice?: string; confirm?: "unsubscribe" | "erase" },
    fields: Record<string, string[]> = {},
    status = 200,
  ) =>
    data(
      {
        message: null,
        notice: null,
        confirm: null,
        ...body,
        fields,
        values: readSubscriberForm(formData),
      },
      { status },
    );
  if (!intent.success) return answer({ message: "Unknown action" }, {}, 400);
  try {
    switch (intent.data) {
      case "save":
        await editSubscriber(ctx, user.email, id, readSubscriberForm(formData));
        return answer({ notice: "Changes saved." });
      case "unsubscribe":
        if (!confirmed) return answer({ confirm: "unsubscribe" });
        await unsubscribeByStaff(ctx, user.email, [id]);
        return answer({ notice: "Unsubscribed: they get no more mail unless they sign up again." });
      case "erase":
        if (!confirmed) return answer({ confirm: "erase" });
        await eraseSubscribers(ctx, [id]);
        throw redirect("/admin/subscribers?erased=1", 303);
    }
  } catch (error) {
    if (error instanceof ProfileError)
      return answer({ message: error.message }, error.fields, error.status);
    if (error instanceof SubscriptionError)
      return answer({ message: error.message }, {}, error.status);
    throw error;
  }
}
