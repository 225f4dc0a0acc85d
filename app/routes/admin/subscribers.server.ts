import { data, redirect } from "react-router";
import { requireTenantAccess } from "../../../server/auth/guards";
import { scopeOf } from "../../../server/http/context";
import {
  changeListMembership,
  eraseSubscribers,
  unsubscribeByStaff,
} from "../../../server/subscribers/bulk-actions";
import { GROWTH_PERIODS, subscriberGrowth } from "../../../server/subscribers/growth";
import { listTenantLists, sendableLists } from "../../../server/subscribers/lists";
import { ProfileError } from "../../../server/subscribers/profiles";
import {
  countByList,
  countByStatus,
  listSubscribers,
  selectedSubscriberIds,
  subscriberFilterFrom,
} from "../../../server/subscribers/search";
import { feedbackSummary } from "../../../server/subscribers/unsubscribe";
import { formatCount } from "../../../shared/format";
import { z } from "../../../shared/zod";
import type { BulkAnswer } from "../../components/admin/subscriber-list";
import type { Route } from "./+types/subscribers";

export async function loader({ url, context }: Route.LoaderArgs) {
  requireTenantAccess(context);
  const ctx = scopeOf(context);
  const params = url.searchParams;
  const filter = subscriberFilterFrom(params);
  const growthQuery = growthSchema.parse({
    days: params.get("growth") ?? undefined,
    list: params.get("growthList") ?? undefined,
  });
  const [lists, statuses, subscribers, feedback, targets, growth] = await Promise.all([
    countByList(ctx),
    countByStatus(ctx),
    listSubscribers(ctx, filter, filter.page),
    feedbackSummary(ctx),
    listTenantLists(ctx.db, ctx.tenant),
    subscriberGrowth(ctx.db, ctx.tenant, growthQuery),
  ]);
  const erased = url.searchParams.get("erased") === "1";
  return {
    lists,
    statuses,
    subscribers,
    feedback,
    /** the lists a bulk action may add people to or take them off */
    targets: sendableLists(targets).map(({ key, name }) => ({ key, name })),
    notice: erased ? "Subscriber erased." : null,
    growth: { period: growthQuery.days, list: growthQuery.list ?? null, days: growth },
  };
}

const growthSchema = z.object({
  days: z.coerce
    .number()
    .refine((days) => (GROWTH_PERIODS as readonly number[]).includes(days))
    .catch(30),
  list: z.string().max(100).optional().catch(undefined),
});

const bulkSchema = z.object({
  bulk: z.enum(["add", "remove", "unsubscribe", "erase", "export"], {
    error: "Choose what to do",
  }),
  toList: z.string().max(100).optional(),
  scope: z.enum(["ticked", "all"]).default("ticked"),
  ids: z.array(z.coerce.number().int().positive()).max(500).default([]),
  confirmed: z.literal("yes").optional(),
});

/**
 * A bulk action on a selection (issue 16, point 2): the ticked rows, or everyone matching the
 * search (its q, status and list ride along). Unsubscribing and erasing ask first, with the count.
 */
async function bulkAction(
  context: Route.ActionArgs["context"],
  by: string,
  formData: FormData,
): Promise<ReturnType<typeof data<BulkAnswer>>> {
  const ctx = scopeOf(context);
  const parsed = bulkSchema.safeParse({
    ...Object.fromEntries(formData),
    ids: formData.getAll("ids"),
  });
  const answer = (body: BulkAnswer, status = 200) => data<BulkAnswer>(body, { status });
  if (!parsed.success) return answer({ kind: "bulk-error", message: "Choose what to do" }, 400);
  const { bulk, toList, scope, ids, confirmed } = parsed.data;
  const search = new URLSearchParams();
  for (const name of ["q", "status", "list"]) {
    const value = formData.get(`filter.${name}`);
    if (typeof value === "string" && value) search.set(name, value);
  }
  const filter = { ...subscriberFilterFrom(search), ...(scope === "ticked" ? { ids } : {}) };
  if (scope === "ticked" && ids.length === 0) {
    return answer(
      {
        kind: "bulk-error",
        message: "Tick the subscribers first, or choose everyone matching the search.",
      },
      400,
    );
  }
  if (bulk === "export") {
    // A download is a GET: the export route takes the same search, and the ticked ids.
    if (scope === "ticked") search.set("ids", ids.join(","));
    throw redirect(`/admin/subscribers/export.csv?${search}`, 303);
  }
  const chosen = await selectedSubscriberIds(ctx, filter);
  if (chosen.length === 0)
    return answer({ kind: "bulk-error", message: "No subscribers match." }, 400);
  const people = `${formatCount(chosen.length)} ${chosen.length === 1 ? "subscriber" : "subscribers"}`;
  try {
    if (bulk === "add" || bulk === "remove") {
      const changed = await changeListMembership(ctx, by, chosen, {
        listKey: toList ?? "",
        action: bulk,
      });
      return answer({
        kind: "bulk-done",
        message: `${formatCount(changed)} of ${people} ${bulk === "add" ? "added to" : "removed from"} the list.`,
      });
    }
    if (!confirmed) {
      return answer({
        kind: "bulk-confirm",
        message:
          bulk === "erase"
            ? `Erase ${people}? Their data is deleted for good; campaign statistics keep them as anonymous counts.`
            : `Unsubscribe ${people}? They get no more mail unless they sign up again.`,
        fields: [...formData.entries()]
          .filter((entry): entry is [string, string] => typeof entry[1] === "string")
          .filter(([name]) => name !== "confirmed"),
      });
    }
    const done =
      bulk === "erase"
        ? await eraseSubscribers(ctx, chosen)
        : await unsubscribeByStaff(ctx, by, chosen);
    return answer({
      kind: "bulk-done",
      message: `${formatCount(done)} ${done === 1 ? "subscriber" : "subscribers"} ${bulk === "erase" ? "erased" : "unsubscribed"}.`,
    });
  } catch (error) {
    if (error instanceof ProfileError)
      return answer(
        { kind: "bulk-error", message: error.message },
        error.status === 503 ? 503 : 400,
      );
    throw error;
  }
}

/** POST: a bulk action on a selection (the CSV import posts to /admin/subscribers/imports). */
export async function action({ request, context }: Route.ActionArgs) {
  const user = requireTenantAccess(context);
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    return data<BulkAnswer>(
      { kind: "bulk-error", message: "The form could not be read. Try again." },
      { status: 400 },
    );
  }
  return bulkAction(context, user.email, form);
}
