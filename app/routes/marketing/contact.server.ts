import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "react-router";
import { contactRateLimit, submitContactMessage } from "../../../server/contact/messages";
import { scopeOf } from "../../../server/http/context";
import { contactSchema } from "../../../shared/schemas/contact";
import type { Route } from "./+types/contact";

export function loader({ url }: Route.LoaderArgs) {
  return { sent: url.searchParams.get("sent") === "1" };
}

export async function action({ request, context }: Route.ActionArgs) {
  const scope = scopeOf(context);
  const submission = parseWithZod(await request.formData(), { schema: contactSchema });
  if (submission.status !== "success") {
    return data({ result: submission.reply() }, { status: 400 });
  }
  if (!(await contactRateLimit.take(`${scope.tenantId}:${scope.clientAddress}`))) {
    return data(
      {
        result: submission.reply({
          formErrors: [
            "You have sent several messages in a short time. Please wait a few minutes and try again.",
          ],
        }),
      },
      { status: 429 },
    );
  }
  const { website, ...message } = submission.value;
  // A filled honeypot is a bot: it gets the same answer as a person, and nothing is stored.
  if (!website) {
    const { id } = await submitContactMessage(scope, message);
    scope.logger.info({ contactMessageId: id }, "contact message stored");
  }
  return redirect("/contact?sent=1#contact-form");
}
