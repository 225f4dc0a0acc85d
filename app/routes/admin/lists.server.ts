// The loader and action of lists.tsx.
import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "react-router";
import { requireTenantAccess } from "../../../server/auth/guards";
import { scopeOf } from "../../../server/http/context";
import { createList, ListError, listOverview } from "../../../server/subscribers/lists";
import { listFormSchema } from "../../../shared/schemas/list";
import type { Route } from "./+types/lists";

/** /admin/lists — the tenant's lists and how many each holds, and a form for a new one. */
export async function loader({ url, context }: Route.LoaderArgs) {
  requireTenantAccess(context);
  const { db, tenant } = scopeOf(context);
  const deleted = url.searchParams.get("deleted") === "1";
  return { lists: await listOverview(db, tenant), notice: deleted ? "List deleted." : null };
}

export async function action({ request, context }: Route.ActionArgs) {
  requireTenantAccess(context);
  const formData = await request.formData();
  const values = Object.fromEntries(formData) as Record<string, string>;
  const submission = parseWithZod(formData, { schema: listFormSchema });
  if (submission.status !== "success") {
    return data({ fields: submission.error ?? {}, form: [] as string[], values }, { status: 400 });
  }
  const { db, tenant } = scopeOf(context);
  try {
    const list = await createList(db, tenant, submission.value);
    throw redirect(`/admin/lists/${list.id}?created=1`, 303);
  } catch (error) {
    if (error instanceof ListError) {
      return data({ fields: {}, form: [error.message], values }, { status: error.status });
    }
    throw error;
  }
}
