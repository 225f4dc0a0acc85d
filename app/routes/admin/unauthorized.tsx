import { data, Form, Link } from "react-router";
import { userContext } from "../../../server/http/context";
import type { Route } from "./+types/unauthorized";

/** /unauthorized (SPEC §2): a signed-in member of staff without the rights for a page. */
export function loader({ context }: Route.LoaderArgs) {
  const user = context.get(userContext);
  return data({ email: user?.email ?? null }, { status: 403 });
}

export const meta: Route.MetaFunction = () => [
  { title: "Access denied" },
  { name: "robots", content: "noindex" },
];

export default function Unauthorized({ loaderData }: Route.ComponentProps) {
  return (
    <main className="mx-auto max-w-2xl px-6 py-24 text-center">
      <p className="text-sm font-semibold uppercase tracking-wider text-brand-strong">403</p>
      <h1 className="mt-2 text-3xl font-bold sm:text-4xl">Access denied</h1>
      <p className="mt-4 text-lg">
        {loaderData.email ? (
          <>
            You are signed in as <strong>{loaderData.email}</strong>, which does not have access to
            this page. Only super admins may manage tenants.
          </>
        ) : (
          "You do not have access to this page."
        )}
      </p>
      <div className="mt-8 flex flex-wrap items-center justify-center gap-4">
        <Form method="post" action="/admin/logout">
          <input
            type="hidden"
            name="redirectTo"
            value="/admin/login?redirectTo=%2Fadmin%2Ftenants"
          />
          <button
            type="submit"
            className="rounded-brand bg-brand-strong px-5 py-2.5 font-semibold text-on-brand-strong"
          >
            Sign in as someone else
          </button>
        </Form>
        <Link to="/" className="font-semibold">
          Back to the home page
        </Link>
      </div>
    </main>
  );
}
