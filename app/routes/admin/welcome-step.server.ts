// The loader and action of welcome-step.tsx.
import { data, redirect } from "react-router";
import { requireTenantAccess } from "../../../server/auth/guards";
import { getCampaignRow } from "../../../server/campaigns/campaign-row";
import {
  changeSequenceStep,
  createSequenceStep,
  updateSequenceStep,
} from "../../../server/campaigns/campaigns";
import { CampaignError } from "../../../server/campaigns/errors";
import { scopeOf } from "../../../server/http/context";
import { LIST_MESSAGES, listTenantLists } from "../../../server/subscribers/lists";
import { z } from "../../../shared/zod";
import type { Route } from "./+types/welcome-step";

async function load(context: Route.LoaderArgs["context"], params: Route.LoaderArgs["params"]) {
  const { db, tenant } = scopeOf(context);
  const list = (await listTenantLists(db, tenant)).find((each) => String(each.id) === params.id);
  if (!list) throw data({ message: LIST_MESSAGES.notFound }, { status: 404 });
  if (params.step === "new") return { list, step: null };
  try {
    const step = await getCampaignRow(db, tenant.id, params.step);
    if (step.sequence_list_id !== list.id || !["sending", "paused"].includes(step.status)) {
      throw new CampaignError("Step not found", 404);
    }
    return { list, step };
  } catch (error) {
    if (error instanceof CampaignError) throw data({ message: "Step not found" }, { status: 404 });
    throw error;
  }
}

/** /admin/lists/:id/welcome/:step (or /new) — one email of the list's welcome sequence. */
export async function loader({ params, context }: Route.LoaderArgs) {
  requireTenantAccess(context);
  const { list, step } = await load(context, params);
  return {
    list: { id: list.id, name: list.name },
    step: step
      ? {
          id: step.id,
          subject: step.subject,
          content: step.content,
          delayDays: step.sequence_delay_days ?? 0,
          senderName: step.from_name,
          senderEmail: step.from_email,
          status: step.status,
        }
      : null,
  };
}

const stepSchema = z.object({
  subject: z.string().trim().max(300, "Subject must be at most 300 characters"),
  content: z.string().max(500_000, "The content is too long"),
  delayDays: z.coerce
    .number({ error: "The delay must be a whole number of days from 0 to 365" })
    .int("The delay must be a whole number of days from 0 to 365")
    .min(0, "The delay must be a whole number of days from 0 to 365")
    .max(365, "The delay must be a whole number of days from 0 to 365"),
  senderName: z.string().trim().max(200).optional(),
  senderEmail: z.string().trim().max(254).optional(),
});

export async function action({ request, params, context }: Route.ActionArgs) {
  const user = requireTenantAccess(context);
  const { list, step } = await load(context, params);
  const scope = scopeOf(context);
  const formData = await request.formData();
  const values = Object.fromEntries(formData) as Record<string, string>;
  const intent = formData.get("intent");
  const fail = (message: string, status = 400) => data({ message, values }, { status });
  const back = `/admin/lists/${list.id}`;
  try {
    if (step && (intent === "pause" || intent === "resume" || intent === "stop")) {
      if (intent === "stop" && formData.get("confirmed") !== "yes") {
        return data({ message: null, values, confirmStop: true });
      }
      await changeSequenceStep(scope, step.id, intent);
      throw redirect(`${back}?step=${intent}`, 303);
    }
    const parsed = stepSchema.safeParse(values);
    if (!parsed.success) return fail(parsed.error.issues[0]?.message ?? "Please check the form.");
    if (step) {
      await updateSequenceStep(scope, step.id, list, parsed.data);
    } else {
      await createSequenceStep(scope, list, parsed.data, user.id);
    }
    scope.worker?.poke();
    throw redirect(`${back}?step=saved`, 303);
  } catch (error) {
    if (error instanceof CampaignError) return fail(error.message, error.status);
    throw error;
  }
}
