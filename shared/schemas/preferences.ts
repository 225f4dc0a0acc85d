import { z } from "../zod";
import { emailField } from "./email";

export const PREFERENCES_PATH = "/subscription/preferences";

/** 'Find Your Subscription': a GET form, so the lookup works without JavaScript and can be bookmarked. */
export const lookupSchema = z.object({ email: emailField() });
