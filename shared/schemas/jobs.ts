import { z } from "../zod";

/** /admin/jobs: the super admin's "Retry" of a failed background job (decision 056). */
export const retryJobSchema = z.object({
  intent: z.literal("retry"),
  jobId: z.coerce.number().int().positive(),
});
