import { z } from "../zod";
import { storableText } from "./text";

/** A list as staff describe it (issue 16, point 1). */
export const listFormSchema = z.object({
  name: storableText({ error: "A list needs a name" })
    .trim()
    .min(1, "A list needs a name")
    .max(100, "Name must be at most 100 characters"),
  description: storableText()
    .trim()
    .max(500, "Description must be at most 500 characters")
    .optional()
    .default(""),
  visibility: z.enum(["public", "private"], { error: "Choose public or private" }),
});

export type ListForm = z.infer<typeof listFormSchema>;

export const LIST_VISIBILITY_TEXT = {
  public: "Public: offered on sign-up and in the preference centre",
  private: "Private: staff add people; visitors never see it",
} as const;
