import { data } from "react-router";
import { scopeOf } from "../../../server/http/context";
import { readArchive } from "../../../server/newsletters/archive";
import { signupFormData } from "../../../server/subscribers/signup-form-data";
import { z } from "../../../shared/zod";
import type { Route } from "./+types/year";
import { pageOf } from "./index.server";

const yearParamSchema = z
  .string()
  .regex(/^\d{4}$/)
  .transform(Number);

const notFound = () => data({ message: "No newsletters this year" }, { status: 404 });

/** /newsletter/archive/{year}: the issues published that year (UTC), newest first. */
export async function loader({ params, url, context }: Route.LoaderArgs) {
  const year = yearParamSchema.safeParse(params.year);
  if (!year.success) throw notFound();
  const archive = await readArchive(scopeOf(context), { page: pageOf(url), year: year.data });
  if (archive.total === 0) throw notFound();
  return data(
    { ...archive, year: year.data, signup: await signupFormData(context) },
    { status: archive.page > archive.pageCount ? 404 : 200 },
  );
}
