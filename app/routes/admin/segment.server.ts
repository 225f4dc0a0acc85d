// The loader and action of segment.tsx.
import { data, redirect } from "react-router";
import { requireTenantAccess } from "../../../server/auth/guards";
import { scopeOf } from "../../../server/http/context";
import { listFields } from "../../../server/subscribers/fields";
import { listTenantLists } from "../../../server/subscribers/lists";
import { countSegment } from "../../../server/subscribers/segment-counts";
import {
  checkSegmentRule,
  deleteSegment,
  getSegment,
  SegmentError,
  saveSegment,
  segmentRuleProblem,
} from "../../../server/subscribers/segments";
import { readSegmentForm, type SegmentRule } from "../../../shared/schemas/segment";
import type { Route } from "./+types/segment";

const EMPTY_RULE: SegmentRule = { lists: [], statuses: [], fields: [] };

/** "new", or a segment's id; anything else is not found. */
function segmentId(raw: string): number | null {
  if (raw === "new") return null;
  const id = Number(raw);
  if (!/^\d{1,15}$/.test(raw) || !Number.isSafeInteger(id)) {
    throw data({ message: "Segment not found" }, { status: 404 });
  }
  return id;
}

async function load(context: Route.LoaderArgs["context"], raw: string) {
  const { db, tenant } = scopeOf(context);
  const id = segmentId(raw);
  if (id === null) return { id: null, name: "", rule: EMPTY_RULE };
  try {
    return await getSegment(db, tenant.id, id);
  } catch (error) {
    if (error instanceof SegmentError) throw data({ message: error.message }, { status: 404 });
    throw error;
  }
}

/** /admin/segments/:id (or /new) — a segment's conditions and how many it matches now. */
export async function loader({ url, params, context }: Route.LoaderArgs) {
  requireTenantAccess(context);
  const { db, tenant } = scopeOf(context);
  const segment = await load(context, params.id);
  // A rule saved before its values were checked is shown as invalid, not counted.
  const problem =
    segment.id === null ? null : await segmentRuleProblem(db, tenant.id, segment.rule);
  const [lists, fields, count] = await Promise.all([
    listTenantLists(db, tenant),
    listFields(db, tenant.id),
    segment.id === null || problem ? null : countSegment(db, tenant.id, segment.rule),
  ]);
  const saved = url.searchParams.get("saved") === "1";
  return {
    segment,
    count,
    lists: lists.map(({ key, name }) => ({ key, name })),
    fields,
    notice: saved ? "Segment saved." : null,
    problem: problem ? `This segment's rule cannot be used: ${problem}. Change it and save.` : null,
  };
}

export async function action({ request, params, context }: Route.ActionArgs) {
  requireTenantAccess(context);
  const { db, tenant } = scopeOf(context);
  const segment = await load(context, params.id);
  const formData = await request.formData();
  const intent = formData.get("intent");
  const answer = (
    body: {
      message?: string;
      count?: { matching: number; active: number };
      confirmDelete?: boolean;
    },
    errors: Record<string, string[]> = {},
    status = 200,
  ) => data({ message: null, count: null, confirmDelete: false, ...body, errors }, { status });
  try {
    if (intent === "delete") {
      if (segment.id === null) return answer({ message: "Segment not found" }, {}, 404);
      if (formData.get("confirmed") !== "yes") return answer({ confirmDelete: true });
      await deleteSegment(db, tenant.id, segment.id);
      throw redirect("/admin/segments?deleted=1", 303);
    }
    const read = readSegmentForm(formData);
    if (intent === "count") {
      // The live count: the rule as it stands in the form, named or not yet.
      const named = read.ok ? read : readSegmentForm(withName(formData));
      if (!named.ok) return answer({}, named.errors, 400);
      const rule = await checkSegmentRule(db, tenant.id, named.rule);
      return answer({ count: await countSegment(db, tenant.id, rule) });
    }
    if (!read.ok) return answer({}, read.errors, 400);
    const id = await saveSegment(db, tenant.id, {
      id: segment.id ?? undefined,
      name: read.name,
      rule: read.rule,
    });
    throw redirect(`/admin/segments/${id}?saved=1`, 303);
  } catch (error) {
    if (error instanceof SegmentError) return answer({ message: error.message }, {}, error.status);
    throw error;
  }
}

/** The form with a placeholder name, so a count can be taken before the segment is named. */
function withName(formData: FormData): FormData {
  const copy = new FormData();
  for (const [name, value] of formData) if (name !== "name") copy.append(name, value);
  copy.set("name", "count");
  return copy;
}
