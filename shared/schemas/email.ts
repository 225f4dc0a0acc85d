import { storableText } from "./text";

/**
 * SPEC §5: non-space characters, an @, and a dot in the domain. Browsers also apply the HTML
 * type=email rule, so the server checks that one too: both sides accept exactly the same addresses.
 */
export const SPEC_EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
export const HTML_EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
export const MAX_EMAIL_LENGTH = 254;

export const invalidEmailMessage = (email: unknown) => `Invalid email format: ${String(email)}`;

export function isValidEmail(value: string): boolean {
  return value.length <= MAX_EMAIL_LENGTH && SPEC_EMAIL.test(value) && HTML_EMAIL.test(value);
}

/** A required email field: trimmed, bounded, SPEC §5 message on a bad format. */
export function emailField(requiredMessage = "Please enter your email address.") {
  return (
    storableText({ error: requiredMessage })
      .trim()
      // A blank field needs one message, not also a format complaint: stop at the first.
      .min(1, { error: requiredMessage, abort: true })
      .max(MAX_EMAIL_LENGTH, `Email must be at most ${MAX_EMAIL_LENGTH} characters.`)
      .regex(SPEC_EMAIL, { error: (issue) => invalidEmailMessage(issue.input) })
      // A refinement, not a second regex: the browser gets SPEC's rule as its pattern attribute and
      // applies the HTML rule itself through type=email. It stays quiet when the regex has already
      // refused the value, so a bad address gets one message, not two.
      .refine((value) => !SPEC_EMAIL.test(value) || HTML_EMAIL.test(value), {
        error: (issue) => invalidEmailMessage(issue.input),
      })
  );
}
