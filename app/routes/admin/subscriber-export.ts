import { data } from "react-router";
import { requireTenantAccess } from "../../../server/auth/guards";
import { scopeOf } from "../../../server/http/context";
import { exportSubscriberData, ProfileError } from "../../../server/subscribers/profiles";
import type { Route } from "./+types/subscriber-export";

/** GET /admin/subscribers/:id/export.json — one subscriber's data (GDPR Art. 15 and 20). */
export async function loader({ params, context }: Route.LoaderArgs) {
  requireTenantAccess(context);
  const id = Number(params.id);
  if (!Number.isSafeInteger(id) || id < 1)
    throw data({ message: "Subscriber not found" }, { status: 404 });
  try {
    const body = await exportSubscriberData(scopeOf(context), id);
    return new Response(JSON.stringify(body, null, 2), {
      headers: {
        "content-type": "application/json; charset=utf-8",
        "content-disposition": `attachment; filename="subscriber-${id}.json"`,
        "cache-control": "no-store",
      },
    });
  } catch (error) {
    if (error instanceof ProfileError)
      throw data({ message: error.message }, { status: error.status });
    throw error;
  }
}
