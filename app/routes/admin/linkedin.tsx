import {
  LinkedInConnection,
  LinkedInPostForm,
  LinkedInPosts,
} from "../../components/admin/linkedin";
import { AdminPage } from "../../components/admin-header";
import { FormAlert, FormNotice } from "../../components/ui/form";
import { noindexMeta } from "../../lib/meta";
import type { Route } from "./+types/linkedin";

export { action, loader } from "./linkedin.server";

export const meta: Route.MetaFunction = () => noindexMeta("LinkedIn");

export default function LinkedIn({ loaderData, actionData }: Route.ComponentProps) {
  return (
    <AdminPage title="LinkedIn" width="wide" className="space-y-8">
      <p>
        Post newsletters to a LinkedIn profile or organization page, with their share image: now, or
        at a time beside the email.
      </p>
      {actionData ? null : <FormNotice message={loaderData.notice} />}
      <FormAlert errors={actionData?.errors} />
      <LinkedInConnection
        configured={loaderData.configured}
        connection={loaderData.connection}
        confirmDisconnect={actionData?.confirm === "disconnect"}
        chosen={loaderData.chosen}
      />
      {loaderData.connection ? (
        <LinkedInPostForm newsletters={loaderData.newsletters} chosen={loaderData.chosen} />
      ) : null}
      <LinkedInPosts posts={loaderData.posts} />
    </AdminPage>
  );
}
