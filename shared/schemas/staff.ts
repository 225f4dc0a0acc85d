import { z } from "../zod";
import { emailField } from "./email";
import { storableText } from "./text";

/** NIST SP 800-63B asks for at least 8; issue 14 asks staff for 10, and no common password. */
export const MIN_PASSWORD_LENGTH = 10;

export const newPasswordField = storableText({ error: "Password is required" })
  .min(MIN_PASSWORD_LENGTH, `Password must be at least ${MIN_PASSWORD_LENGTH} characters.`)
  .max(200, "Password must be at most 200 characters.");

/** First-run setup: the first super admin. */
export const setupSchema = z
  .object({
    token: storableText().min(1),
    email: emailField(),
    password: newPasswordField,
    confirmPassword: storableText({ error: "Please repeat the password." }),
  })
  .refine((value) => value.password === value.confirmPassword, {
    message: "The passwords do not match.",
    path: ["confirmPassword"],
  });

export const STAFF_ROLES = ["super_admin", "editor"] as const;

/** Adding a staff user in the admin area. */
export const addUserSchema = z.object({
  intent: z.literal("add"),
  email: emailField(),
  password: newPasswordField,
  role: z.enum(STAFF_ROLES, { error: "Choose a role." }),
  products: z.array(storableText().max(64)).default([]),
});

export const updateAccessSchema = z.object({
  intent: z.literal("access"),
  userId: storableText().min(1),
  role: z.enum(STAFF_ROLES, { error: "Choose a role." }),
  products: z.array(storableText().max(64)).default([]),
});

export const resetPasswordSchema = z.object({
  intent: z.literal("password"),
  userId: storableText().min(1),
  password: newPasswordField,
});

export const removeUserSchema = z.object({
  intent: z.literal("remove"),
  userId: storableText().min(1),
});

/** Inviting a staff member by email: they choose their own password. */
export const inviteUserSchema = z.object({
  intent: z.literal("invite"),
  email: emailField(),
  role: z.enum(STAFF_ROLES, { error: "Choose a role." }),
  products: z.array(storableText().max(64)).default([]),
});

/** A super admin clears a staff member's second factor (a lost phone). */
export const resetTwoFactorSchema = z.object({
  intent: z.literal("reset-2fa"),
  userId: storableText().min(1).max(64),
});

export const invitationActionSchema = z.object({
  intent: z.enum(["revoke-invitation", "resend-invitation"]),
  invitationId: storableText().min(1).max(64),
});

/** "Forgot password?": the address of the account. */
export const forgotPasswordSchema = z.object({ email: emailField() });

/** Choosing a password from an emailed link (a reset or an invitation). */
export const choosePasswordSchema = z
  .object({
    /** an invitee's name (their byline), optional; a reset has no such field */
    displayName: storableText()
      .trim()
      .max(100, "Your name must be at most 100 characters.")
      .optional(),
    password: newPasswordField,
    confirmPassword: storableText({ error: "Please repeat the password." }),
  })
  .refine((value) => value.password === value.confirmPassword, {
    message: "The passwords do not match.",
    path: ["confirmPassword"],
  });

/** A code from the authenticator app (6 digits) or a recovery code (xxxxx-xxxxx-xxxxx-xxxxx). */
export const secondFactorCodeSchema = z.object({
  code: storableText({ error: "Enter the code from your app." })
    .trim()
    .min(6, "Enter the code from your app.")
    .max(40, "That code is too long."),
  redirectTo: storableText().max(2000).optional(),
});

/** Turning two-factor sign-in on: a code from the new secret and the account's password. */
export const turnOnTwoFactorSchema = z.object({
  intent: z.literal("confirm"),
  code: storableText({ error: "Enter the code from your app." })
    .trim()
    .min(1, "Enter the code from your app.")
    .max(20, "That code is too long."),
  password: storableText({ error: "Enter your password." })
    .min(1, "Enter your password.")
    .max(200, "That is too long."),
});

/** Turning two-factor sign-in off: the password, a code from the app or a recovery code. */
export const turnOffTwoFactorSchema = z.object({
  intent: z.literal("disable"),
  proof: storableText({ error: "Enter your password or a code from your app." })
    .min(1, "Enter your password or a code from your app.")
    .max(200, "That is too long."),
});
