// The loader and action of subscriber-fields.tsx.
import { parseWithZod } from "@conform-to/zod/v4";
import { data } from "react-router";
import { requireTenantAccess } from "../../../server/auth/guards";
import { scopeOf } from "../../../server/http/context";
import {
  createField,
  deleteField,
  FieldError,
  listFields,
} from "../../../server/subscribers/fields";
import { newFieldSchema } from "../../../shared/schemas/subscriber-fields";
import { z } from "../../../shared/zod";
import type { Route } from "./+types/subscriber-fields";

/** /admin/subscribers/fields — the tenant's custom subscriber fields. */
export async function loader({ context }: Route.LoaderArgs) {
  requireTenantAccess(context);
  const { db, tenant } = scopeOf(context);
  return { fields: await listFields(db, tenant.id) };
}

export async function action({ request, context }: Route.ActionArgs) {
  requireTenantAccess(context);
  const { db, tenant } = scopeOf(context);
  const formData = await request.formData();
  const values = Object.fromEntries(formData) as Record<string, string>;
  const answer = (
    body: { message?: string; notice?: string; confirmDelete?: string },
    fields: Record<string, string[] | null> = {},
    status = 200,
  ) =>
    data({ message: null, notice: null, confirmDelete: null, ...body, fields, values }, { status });
  try {
    if (formData.get("intent") === "delete") {
      const key = z.string().max(60).safeParse(formData.get("key"));
      if (!key.success) return answer({ message: "Field not found" }, {}, 404);
      const field = (await listFields(db, tenant.id)).find((each) => each.key === key.data);
      if (!field) return answer({ message: "Field not found" }, {}, 404);
      if (formData.get("confirmed") !== "yes") return answer({ confirmDelete: field.key });
      await deleteField(db, tenant.id, field.key);
      return answer({ notice: `Deleted “${field.label}” and every subscriber's value of it.` });
    }
    const submission = parseWithZod(formData, { schema: newFieldSchema });
    if (submission.status !== "success") return answer({}, submission.error ?? {}, 400);
    const field = await createField(db, tenant.id, submission.value);
    return answer({ notice: `Added “${field.label}”.` });
  } catch (error) {
    if (error instanceof FieldError) return answer({ message: error.message }, {}, error.status);
    throw error;
  }
}
