/** Errors whose message is shown to visitors as it is (SPEC §8 texts). */
export class SubscriptionError extends Error {
  constructor(
    message: string,
    readonly status: 400 | 404 | 409 | 429 | 503 = 400,
  ) {
    super(message);
  }
}

export const MESSAGES = {
  notFound: "Subscriber not found. Please check your email address.",
  loadFailed: "Failed to load subscription data. Please try again.",
  invalidLink: "Invalid or expired verification link. Please try again.",
  verificationNotSent: "Failed to send verification email. Please try again.",
  unsubscribeFailed: "Failed to unsubscribe. Please try again.",
  notActive: "Subscriber is not active",
  noGroups: "No valid groups specified",
  enterEmail: "Please enter your email address.",
  failed: "An error occurred while processing your request.",
} as const;
