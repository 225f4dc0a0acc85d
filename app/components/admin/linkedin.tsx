import { Form } from "react-router";
import {
  AUTHOR_KIND_LABELS,
  AUTHOR_KINDS,
  POST_TIME_LABELS,
  POST_TIMES,
} from "../../../shared/schemas/linkedin";
import { utcToZonedLocal } from "../../../shared/time-zone";
import { StaffTime, useTimeZone } from "../../lib/time-zone";
import { AdminSection } from "../admin-header";
import { ConfirmPanel } from "../ui/confirm";
import { DataTable } from "../ui/data-table";
import { ChoiceGroup, dangerSubmitClass, plainFieldClass, SubmitButton } from "../ui/form";

/*
 * The parts of /admin/linkedin: the connection (connect, reconnect, disconnect), the form that
 * posts a newsletter, and the posts with their state and LinkedIn's errors in plain words.
 */

export interface ConnectionView {
  kind: "member" | "organization";
  authorName: string;
  connectedBy: string;
  connectedAt: string;
  lastsUntil: string;
  problem: string | null;
  reconnect: boolean;
}

function ConnectForm({ label, chosen }: { label: string; chosen: string | null }) {
  return (
    <Form method="post" className="mt-3 space-y-3">
      <input type="hidden" name="intent" value="connect" />
      {/* Carried through LinkedIn, so the newsletter is still chosen after connecting. */}
      {chosen ? <input type="hidden" name="newsletterId" value={chosen} /> : null}
      <ChoiceGroup
        type="radio"
        legend="Post as"
        name="kind"
        chosen="member"
        options={AUTHOR_KINDS.map((value) => ({ value, label: AUTHOR_KIND_LABELS[value] }))}
      />
      <label htmlFor="linkedin-organization" className="block font-semibold">
        Organization page id <span className="font-normal">(for an organization page)</span>
      </label>
      <input
        id="linkedin-organization"
        name="organizationId"
        inputMode="numeric"
        className={`${plainFieldClass} max-w-xs`}
      />
      <div>
        <SubmitButton>{label}</SubmitButton>
      </div>
    </Form>
  );
}

export function LinkedInConnection({
  configured,
  connection,
  confirmDisconnect,
  chosen = null,
}: {
  configured: boolean;
  connection: ConnectionView | null;
  confirmDisconnect: boolean;
  /** the newsletter picked on arrival, kept across connecting */
  chosen?: string | null;
}) {
  return (
    <AdminSection id="linkedin-connection-heading" title="Connection">
      {!configured ? (
        <p className="mt-2">
          LinkedIn is not set up on this installation: whoever runs Herald sets LINKEDIN_CLIENT_ID
          and LINKEDIN_CLIENT_SECRET.
        </p>
      ) : !connection ? (
        <>
          <p className="mt-2">
            Not connected. Connect a LinkedIn profile or organization page to post newsletters
            there.
          </p>
          <ConnectForm label="Connect LinkedIn" chosen={chosen} />
        </>
      ) : (
        <>
          <p className="mt-2">
            Posting as <strong>{connection.authorName}</strong>
            {` (${connection.kind === "member" ? "profile" : "organization page"}), connected by ${connection.connectedBy} on `}
            <StaffTime iso={connection.connectedAt} />
            {". Works until "}
            <StaffTime iso={connection.lastsUntil} />.
          </p>
          {connection.reconnect ? (
            <div role="alert" className="mt-3 rounded-brand border-2 border-danger p-3">
              <p className="font-semibold">
                {`${connection.problem ? "LinkedIn no longer accepts this connection." : "This connection lapses soon."} Reconnect LinkedIn to keep posting.`}
              </p>
              {connection.problem ? <p className="mt-1">{connection.problem}</p> : null}
              <ConnectForm label="Reconnect LinkedIn" chosen={chosen} />
            </div>
          ) : null}
          {confirmDisconnect ? (
            <div className="mt-3">
              <ConfirmPanel
                title="Disconnect LinkedIn?"
                fields={{ intent: "disconnect" }}
                confirmLabel="Disconnect"
              >
                Scheduled posts wait until LinkedIn is connected again.
              </ConfirmPanel>
            </div>
          ) : (
            <Form method="post" className="mt-3">
              <input type="hidden" name="intent" value="disconnect" />
              <button type="submit" className={dangerSubmitClass}>
                Disconnect LinkedIn
              </button>
            </Form>
          )}
        </>
      )}
    </AdminSection>
  );
}

export function LinkedInPostForm({
  newsletters,
  chosen,
}: {
  newsletters: readonly { id: string; title: string; scheduledAt: string | null }[];
  /** the newsletter picked on arrival (the social pack's "Post it on LinkedIn") */
  chosen?: string | null;
}) {
  const zone = useTimeZone();
  const firstScheduled = newsletters.find((newsletter) => newsletter.scheduledAt)?.scheduledAt;
  return (
    <AdminSection id="linkedin-post-heading" title="Post to LinkedIn">
      {newsletters.length === 0 ? (
        <p className="mt-2">Publish a newsletter (or schedule one) to post it here.</p>
      ) : (
        <Form method="post" className="mt-3 space-y-3">
          <input type="hidden" name="intent" value="post" />
          <label htmlFor="linkedin-newsletter" className="block font-semibold">
            Newsletter
          </label>
          <select
            id="linkedin-newsletter"
            name="newsletterId"
            defaultValue={chosen ?? undefined}
            className={plainFieldClass}
          >
            {newsletters.map((newsletter) => (
              <option key={newsletter.id} value={newsletter.id}>
                {newsletter.title}
                {newsletter.scheduledAt ? " (scheduled to publish)" : ""}
              </option>
            ))}
          </select>
          <ChoiceGroup
            type="radio"
            legend="When"
            name="when"
            chosen="now"
            hint="A post for a newsletter scheduled to publish waits for its publication, beside the email."
            options={POST_TIMES.map((value) => ({ value, label: POST_TIME_LABELS[value] }))}
          />
          <label htmlFor="linkedin-at" className="block font-semibold">
            Time <span className="font-normal">({zone})</span>
          </label>
          <input
            id="linkedin-at"
            name="at"
            type="datetime-local"
            defaultValue={firstScheduled ? utcToZonedLocal(firstScheduled, zone) : undefined}
            className={`${plainFieldClass} max-w-xs`}
          />
          <div>
            <SubmitButton>Post to LinkedIn</SubmitButton>
          </div>
        </Form>
      )}
    </AdminSection>
  );
}

const STATE_LABELS = {
  scheduled: "Scheduled",
  uploading: "Posting",
  posted: "Posted",
  failed: "Failed",
} as const;

export interface PostRow {
  id: number;
  title: string;
  state: keyof typeof STATE_LABELS;
  dueAt: string;
  postUrn: string | null;
  postedAt: string | null;
  error: string | null;
}

export function LinkedInPosts({ posts }: { posts: readonly PostRow[] }) {
  return (
    <AdminSection id="linkedin-posts-heading" title="Posts">
      <DataTable
        className="mt-3"
        rows={posts}
        rowKey={(post) => post.id}
        empty="No posts yet."
        columns={[
          { header: "Newsletter", cell: (post) => post.title },
          {
            header: "Status",
            cell: (post) => (
              <div className="min-w-0">
                <strong>{STATE_LABELS[post.state]}</strong>
                {post.error ? <span className="block text-danger">{post.error}</span> : null}
              </div>
            ),
          },
          {
            header: "When",
            cell: (post) => <StaffTime iso={post.postedAt ?? post.dueAt} />,
          },
          {
            header: "LinkedIn",
            className: "sm:whitespace-nowrap",
            cell: (post) =>
              post.postUrn ? (
                <a href={`https://www.linkedin.com/feed/update/${post.postUrn}/`}>View post</a>
              ) : post.state === "scheduled" || post.state === "failed" ? (
                <Form method="post" className="flex flex-wrap gap-2">
                  <input type="hidden" name="postId" value={post.id} />
                  <button type="submit" name="intent" value="cancel" className="underline">
                    Withdraw
                  </button>
                </Form>
              ) : null,
          },
        ]}
      />
    </AdminSection>
  );
}
