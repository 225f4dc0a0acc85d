import { data } from "react-router";
import { scopeOf } from "../../../server/http/context";
import { readArchive } from "../../../server/newsletters/archive";
import { signupFormData } from "../../../server/subscribers/signup-form-data";
import { z } from "../../../shared/zod";
import type { Route } from "./+types/index";

/** ?page=N; anything that is not a whole number from 1 up means the first page. */
export const pageSchema = z.coerce.number().int().min(1).max(100_000).catch(1);

export const pageOf = (url: URL) => pageSchema.parse(url.searchParams.get("page") ?? undefined);

/**
 * The reading room's index: the tenant's published newsletters, newest first, ten to a page, with
 * the tags and years to browse by. It sits under the marketing layout, so the anonymous pages are
 * kept by the page cache (up to 60 s).
 */
export async function loader({ url, context }: Route.LoaderArgs) {
  const archive = await readArchive(scopeOf(context), { page: pageOf(url) });
  return data(
    { ...archive, signup: await signupFormData(context) },
    // A page past the last one is answered, with a way back, but not as a page that exists.
    { status: archive.page > archive.pageCount ? 404 : 200 },
  );
}
