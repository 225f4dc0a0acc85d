/** Said by the newsletter page's loader (404) and shown by its error page. */
export const NEWSLETTER_NOT_FOUND = "Newsletter not found";

/** A share link that no longer opens the preview (issue 15, part 5). */
export const PREVIEW_GONE = "This preview link has expired or was revoked";
