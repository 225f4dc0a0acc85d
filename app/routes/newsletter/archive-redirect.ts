import { redirect } from "react-router";

/** /newsletters: the plural people type for the archive, which lives at /newsletter. */
export function loader() {
  return redirect("/newsletter", 301);
}
