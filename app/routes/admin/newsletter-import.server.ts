// The loader of newsletter-import.tsx.
import { data } from "react-router";
import { requireTenantAccess } from "../../../server/auth/guards";
import { scopeOf } from "../../../server/http/context";
import {
  ArchiveImportNotFound,
  getArchiveImport,
} from "../../../server/newsletters/archive-imports";
import { z } from "../../../shared/zod";
import type { Route } from "./+types/newsletter-import";

const idSchema = z.coerce.number().int().positive().max(2_147_483_647);

/** /admin/newsletter/import/:id — an archive import's progress, then its report. */
export async function loader({ context, params }: Route.LoaderArgs) {
  requireTenantAccess(context);
  const id = idSchema.safeParse(params.id);
  try {
    if (!id.success) throw new ArchiveImportNotFound();
    return { job: await getArchiveImport(scopeOf(context), id.data) };
  } catch (error) {
    if (error instanceof ArchiveImportNotFound) {
      throw data({ message: "Import not found" }, { status: 404 });
    }
    throw error;
  }
}
