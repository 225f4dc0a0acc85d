/** Said by the newsletter page's loader (404) and shown by its error page. */
export const NEWSLETTER_NOT_FOUND = "Newsletter not found";
