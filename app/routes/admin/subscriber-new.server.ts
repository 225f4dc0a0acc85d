// The loader and action of subscriber-new.tsx.
import { data, redirect } from "react-router";
import { requireTenantAccess } from "../../../server/auth/guards";
import { scopeOf } from "../../../server/http/context";
import { MailNotSentError } from "../../../server/mail/send";
import { SubscriptionError } from "../../../server/subscribers/errors";
import { listFields } from "../../../server/subscribers/fields";
import { listTenantLists, sendableLists } from "../../../server/subscribers/lists";
import { addSubscriber } from "../../../server/subscribers/profile-edit";
import { ProfileError } from "../../../server/subscribers/profiles";
import { readSubscriberForm } from "../../../shared/schemas/subscriber-fields";
import type { Route } from "./+types/subscriber-new";

/** /admin/subscribers/new — one subscriber, active at once or sent the double opt-in. */
export async function loader({ context }: Route.LoaderArgs) {
  requireTenantAccess(context);
  const { db, tenant } = scopeOf(context);
  const [lists, fields] = await Promise.all([
    listTenantLists(db, tenant),
    listFields(db, tenant.id),
  ]);
  return { lists: sendableLists(lists), fields, defaultList: tenant.emailGroups.default };
}

export async function action({ request, context }: Route.ActionArgs) {
  const user = requireTenantAccess(context);
  const formData = await request.formData();
  const input = readSubscriberForm(formData);
  const optIn = formData.get("mode") === "opt-in";
  const values = { ...input, mode: optIn ? "opt-in" : "active" };
  try {
    const id = await addSubscriber(scopeOf(context), user.email, { ...input, optIn });
    throw redirect(`/admin/subscribers/${id}?added=${optIn ? "opt-in" : "active"}`, 303);
  } catch (error) {
    if (error instanceof ProfileError) {
      return data(
        { message: error.message, fields: error.fields, values },
        { status: error.status },
      );
    }
    // Past the tenant's subscriber limit (decision 057): the message names it.
    if (error instanceof SubscriptionError) {
      return data({ message: error.message, fields: {}, values }, { status: error.status });
    }
    if (error instanceof MailNotSentError) {
      return data(
        {
          message: "The confirmation email could not be sent; it will be retried from the outbox.",
          fields: {},
          values,
        },
        { status: 503 },
      );
    }
    throw error;
  }
}
