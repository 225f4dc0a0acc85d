import { z } from "../zod";

/** SPEC §5: email and password required. The format is not checked here: a wrong one just fails. */
export const loginSchema = z.object({
  email: z.string({ error: "Email is required" }).trim().min(1, "Email is required").max(254),
  password: z.string({ error: "Password is required" }).min(1, "Password is required").max(200),
  redirectTo: z.string().max(2000).optional(),
});
