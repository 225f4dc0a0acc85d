import type { LinkedInError } from "./api";

/** What staff read about LinkedIn: plain words, LinkedIn's own message beside them. */
export const LINKEDIN_MESSAGES = {
  notConfigured:
    "LinkedIn is not set up on this installation: set LINKEDIN_CLIENT_ID and LINKEDIN_CLIENT_SECRET.",
  organizationId: "Enter the organization page's numeric id (the number in its admin address).",
  badState:
    "That LinkedIn answer was not for this sign-in (it came from another browser, or is older than 10 minutes). Connect again.",
  usedState: "That LinkedIn answer was used already. Connect again.",
  notAdministrator: (member: string, organizationId: string) =>
    `${member} does not administer the LinkedIn organization ${organizationId}: only an administrator of its page can connect it.`,
  declined: "LinkedIn did not connect:",
  exchangeFailed: "LinkedIn refused the connection:",
  connected: "LinkedIn is connected.",
  disconnected: "LinkedIn is disconnected. Scheduled posts wait until it is connected again.",
  notConnected: "Connect LinkedIn first.",
  notPublished: "Only a published newsletter can be posted to LinkedIn.",
  alreadyPosted: "This newsletter is already on LinkedIn.",
  scheduled: "The LinkedIn post is scheduled.",
  queued: "The LinkedIn post is on its way.",
  cancelled: "The LinkedIn post is cancelled.",
  badTime: "Choose a time for the post.",
  pastTime: "Choose a time from now on for the post, or post it now.",
  notWaiting: "That post is no longer waiting: it was posted, is being posted, or was withdrawn.",
} as const;

/** LinkedIn's refusal of a post, as the post's status line says it. */
export function postErrorMessage(error: LinkedInError, retryAt: Date | null): string {
  const theirs = `LinkedIn said: ${error.code ? `${error.code}, ` : ""}"${error.message}"`;
  const again = retryAt
    ? ` Herald tries again at ${retryAt.toISOString().slice(0, 16).replace("T", " ")} UTC.`
    : "";
  switch (error.kind) {
    case "expired-token":
      return `LinkedIn no longer accepts Herald's access: the token expired or was revoked. Reconnect LinkedIn, then post again. ${theirs}`;
    case "rate-limit":
      return `LinkedIn's rate limit was reached.${again} ${theirs}`;
    case "duplicate":
      return `LinkedIn refused the post as a duplicate of one already on the page. ${theirs}`;
    case "forbidden":
      return `The connected LinkedIn account may not post as this page. ${theirs}`;
    case "unavailable":
      return `LinkedIn could not be reached or failed.${again} ${theirs}`;
    default:
      return `LinkedIn refused the post. ${theirs}`;
  }
}
