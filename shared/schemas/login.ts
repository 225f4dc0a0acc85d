import { z } from "../zod";
import { storableText } from "./text";

/** SPEC §5: email and password required. The format is not checked here: a wrong one just fails. */
export const loginSchema = z.object({
  email: storableText({ error: "Email is required" }).trim().min(1, "Email is required").max(254),
  password: storableText({ error: "Password is required" }).min(1, "Password is required").max(200),
  redirectTo: storableText().max(2000).optional(),
});
