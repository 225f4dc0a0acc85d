import { data } from "react-router";
import { scopeOf } from "../../../server/http/context";
import { readArchive } from "../../../server/newsletters/archive";
import { getTag } from "../../../server/newsletters/tags";
import { signupFormData } from "../../../server/subscribers/signup-form-data";
import { z } from "../../../shared/zod";
import type { Route } from "./+types/tag";
import { pageOf } from "./index.server";

const tagParamSchema = z
  .string()
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/)
  .max(120);

const notFound = () => data({ message: "Tag not found" }, { status: 404 });

/** /newsletter/tag/{tag}: the published issues with this tag. A tag only drafts carry is not shown. */
export async function loader({ params, url, context }: Route.LoaderArgs) {
  const slug = tagParamSchema.safeParse(params.tag);
  if (!slug.success) throw notFound();
  const scope = scopeOf(context);
  const tag = await getTag(scope, slug.data);
  if (!tag) throw notFound();
  const archive = await readArchive(scope, { page: pageOf(url), tag: tag.slug });
  if (archive.total === 0) throw notFound();
  return data(
    { ...archive, tag, signup: await signupFormData(context) },
    { status: archive.page > archive.pageCount ? 404 : 200 },
  );
}
