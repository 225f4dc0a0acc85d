/** What the /test/functions page and its action share (app/routes/test/functions.tsx). */

/** SPEC §2 /test/functions: the four buttons and the function each one calls. */
export const BUTTONS = [
  { fn: "helloWorld", label: "Test Connection" },
  { fn: "sendEmail", label: "Send Email" },
  { fn: "addSubscriber", label: "Add Subscriber" },
  { fn: "completeNewsletterSignup", label: "Complete Signup Flow" },
] as const;

export type TestFunction = (typeof BUTTONS)[number]["fn"];

export const isTestFunction = (value: unknown): value is TestFunction =>
  BUTTONS.some((button) => button.fn === value);

export type FunctionAnswer = {
  fn: TestFunction;
  ok: boolean;
  message: string;
  /** what POST /api/functions/{fn} would answer: { result } or { error } */
  body: unknown;
  values: { email: string; name: string };
};
