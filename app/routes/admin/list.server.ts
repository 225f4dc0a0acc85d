// The loader and action of list.tsx.
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "react-router";
import { requireTenantAccess } from "../../../server/auth/guards";
import { getCampaignRow } from "../../../server/campaigns/campaign-row";
import { campaignProgress } from "../../../server/campaigns/reports";
import { listSequenceSteps } from "../../../server/campaigns/sequences";
import { scopeOf } from "../../../server/http/context";
import {
  deleteList,
  LIST_MESSAGES,
  ListError,
  listOverview,
  setListArchived,
  updateList,
} from "../../../server/subscribers/lists";
import { listFormSchema } from "../../../shared/schemas/list";
import { z } from "../../../shared/zod";
import type { Route } from "./+types/list";

async function load(context: Route.LoaderArgs["context"], id: string) {
  const { db, tenant } = scopeOf(context);
  const list = (await listOverview(db, tenant)).find((each) => String(each.id) === id);
  if (!list) throw data({ message: LIST_MESSAGES.notFound }, { status: 404 });
  return list;
}

/** /admin/lists/:id — rename, describe, make public or private, archive or delete one list. */
export async function loader({ url, params, context }: Route.LoaderArgs) {
  requireTenantAccess(context);
  const list = await load(context, params.id);
  const { db, tenant } = scopeOf(context);
  const steps = await listSequenceSteps(db, tenant.id, list.id);
  const progress = await Promise.all(
    steps.map(async (step) => campaignProgress(db, await getCampaignRow(db, tenant.id, step.id))),
  );
  const stepNotice = STEP_NOTICES[url.searchParams.get("step") ?? ""];
  return {
    list,
    steps: steps.map((step, index) => ({ ...step, sent: progress[index]?.sent ?? 0 })),
    notice: url.searchParams.get("created") === "1" ? "List created." : (stepNotice ?? null),
  };
}

const STEP_NOTICES: Record<string, string> = {
  saved: "Welcome email saved.",
  pause: "Welcome email paused: people who join meanwhile get it on resume.",
  resume: "Welcome email resumed.",
  stop: "Welcome email stopped.",
};

const intentSchema = z.object({
  intent: z.enum(["save", "archive", "restore", "delete"]),
  confirmed: z.literal("yes").optional(),
});

export async function action({ request, params, context }: Route.ActionArgs) {
  requireTenantAccess(context);
  const formData = await request.formData();
  const values = Object.fromEntries(formData) as Record<string, string>;
  const parsed = intentSchema.safeParse({
    intent: formData.get("intent"),
    confirmed: formData.get("confirmed") ?? undefined,
  });
  const answer = (
    extra: {
      fields?: Record<string, string[] | null>;
      error?: string;
      notice?: string;
      confirm?: boolean;
    },
    status = 200,
  ) =>
    data({ fields: {}, error: null, notice: null, confirm: false, values, ...extra }, { status });
  if (!parsed.success) return answer({ error: "Unknown action" }, 400);
  const { db, tenant } = scopeOf(context);
  const list = await load(context, params.id);
  try {
    switch (parsed.data.intent) {
      case "save": {
        const submission = parseWithZod(formData, { schema: listFormSchema });
        if (submission.status !== "success") return answer({ fields: submission.error ?? {} }, 400);
        await updateList(db, tenant, list.id, submission.value);
        return answer({ notice: "Changes saved." });
      }
      case "archive":
      case "restore":
        await setListArchived(db, tenant, list.id, parsed.data.intent === "archive");
        return answer({
          notice: parsed.data.intent === "archive" ? "List archived." : "List restored.",
        });
      case "delete":
        // Deleting asks first, saying how many people it takes off the list.
        if (!parsed.data.confirmed) return answer({ confirm: true });
        await deleteList(db, tenant, list.id);
        throw redirect("/admin/lists?deleted=1", 303);
    }
  } catch (error) {
    if (error instanceof ListError) return answer({ error: error.message }, error.status);
    throw error;
  }
}
