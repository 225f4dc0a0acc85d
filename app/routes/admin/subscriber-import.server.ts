// The loader of subscriber-import.tsx.
import { data } from "react-router";
import { requireTenantAccess } from "../../../server/auth/guards";
import { scopeOf } from "../../../server/http/context";
import { getImport, ImportNotFound } from "../../../server/subscribers/imports";
import { z } from "../../../shared/zod";
import type { Route } from "./+types/subscriber-import";

const idSchema = z.coerce.number().int().positive().max(2_147_483_647);

/** /admin/subscribers/imports/:id — an import's progress, then its report. */
export async function loader({ context, params }: Route.LoaderArgs) {
  requireTenantAccess(context);
  const id = idSchema.safeParse(params.id);
  try {
    if (!id.success) throw new ImportNotFound();
    return { job: await getImport(scopeOf(context), id.data) };
  } catch (error) {
    if (error instanceof ImportNotFound)
      throw data({ message: "Import not found" }, { status: 404 });
    throw error;
  }
}
