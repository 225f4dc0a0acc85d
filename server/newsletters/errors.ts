/* What the newsletter rules refuse, with the texts staff see (the form shows them as they are). */

export const COVER_NOT_FOUND =
  "That cover image is not among this site's uploads. Upload it again.";

/** A cover image that is not one of the tenant's uploads. */
export class CoverImageNotFoundError extends Error {
  constructor() {
    super(COVER_NOT_FOUND);
  }
}

export const SLUG_TAKEN = "Another newsletter has, or had, this URL. Choose another one.";

/** A slug the writer chose that another newsletter of the tenant holds (now or before). */
export class NewsletterSlugTakenError extends Error {
  constructor() {
    super(SLUG_TAKEN);
  }
}

export class NewsletterNotFoundError extends Error {
  constructor(id: string) {
    super(`Newsletter with ID ${id} not found`);
  }
}

export const SCHEDULE_MESSAGES = {
  past: "Choose a time in the future",
  tooFar: "Choose a time within the next year",
  notDraft: "Only a draft can be scheduled: this newsletter is already published",
} as const;

/** A schedule that cannot be kept (a time gone by, a newsletter already out). */
export class ScheduleError extends Error {}
