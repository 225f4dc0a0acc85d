// The loader and action of newsletter-send.tsx.

import { parseWithZod } from "@conform-to/zod/v4";
import { data, redirect } from "react-router";
import { API_STATUS } from "../../../server/api/errors";
import { requireTenantAccess } from "../../../server/auth/guards";
import { CampaignError } from "../../../server/campaigns/errors";
import { previewCampaign, reviewCampaign } from "../../../server/campaigns/review";
import { sendAsCampaign } from "../../../server/campaigns/send-as-campaign";
import { sendCampaignTests, TestSendLimitError } from "../../../server/campaigns/test-sends";
import { scopeOf, userContext } from "../../../server/http/context";
import { llmConfigOf } from "../../../server/llm/client";
import { MailNotSentError } from "../../../server/mail/send";
import { getNewsletter } from "../../../server/newsletters/listing";
import { ProviderError } from "../../../server/providers/types";
import { FIXED_SENDER } from "../../../server/tenants/config";
import {
  campaignFormSchema,
  campaignFormValues,
  splitFormErrors,
} from "../../../shared/schemas/campaign";
import { MAX_TEST_RECIPIENTS, testRecipientsSchema } from "../../../shared/schemas/test-send";
import type { CampaignReviewView } from "../../components/admin/campaign-review";
import type { Route } from "./+types/newsletter-send";
import { campaignChoices, campaignSettings } from "./campaign-form.server";

async function publishedNewsletter(context: Route.LoaderArgs["context"], id: string) {
  const scope = scopeOf(context);
  const newsletter = await getNewsletter(scope, id);
  if (!newsletter) throw data({ message: `Newsletter with ID ${id} not found` }, { status: 404 });
  if (newsletter.status !== "published") {
    throw data({ message: "Publish the newsletter before sending it by email." }, { status: 409 });
  }
  return newsletter;
}

/** /admin/newsletter/send/:id — 'Send as email' for a published newsletter (SPEC §7 defaults). */
export async function loader({ params, context }: Route.LoaderArgs) {
  const user = requireTenantAccess(context);
  const tenant = scopeOf(context).tenant;
  const newsletter = await publishedNewsletter(context, params.id);
  const { lists, segments } = await campaignChoices(context);
  return {
    newsletter: { id: newsletter.id, title: newsletter.title, sentAt: newsletter.sentAt },
    lists,
    segments,
    defaults: {
      subject: newsletter.title,
      senderName: tenant.email.senderName || FIXED_SENDER.name,
      senderEmail: tenant.email.senderEmail || FIXED_SENDER.email,
      replyTo: tenant.email.replyTo,
      lists: [tenant.emailGroups.default],
    },
    me: user.email,
    maxTestRecipients: MAX_TEST_RECIPIENTS,
    /** "Suggest a subject line" is offered only with a language model set (decision 047) */
    llmOn: llmConfigOf(scopeOf(context).env) !== null,
  };
}

export type ActionAnswer =
  | {
      kind: "errors";
      fields: Record<string, string[]>;
      form: string[];
      values: Record<string, unknown>;
    }
  | {
      kind: "preview";
      html: string;
      subject: string;
      from: string;
      values: Record<string, unknown>;
    }
  | { kind: "tested"; to: string[]; values: Record<string, unknown> }
  | ({ kind: "review"; values: Record<string, unknown> } & CampaignReviewView);

export async function action({ request, params, context }: Route.ActionArgs) {
  const user = requireTenantAccess(context);
  const newsletter = await publishedNewsletter(context, params.id);
  const formData = await request.formData();
  const values = campaignFormValues(formData);
  const submission = parseWithZod(formData, { schema: campaignFormSchema });
  const fail = (fields: Record<string, string[]>, form: string[], status = 400) =>
    data<ActionAnswer>({ kind: "errors", fields, form, values }, { status });
  if (submission.status !== "success") {
    const { fields, form } = splitFormErrors(submission.error);
    return fail(fields, form);
  }
  const form = submission.value;
  const ctx = scopeOf(context);
  const input = {
    newsletterId: newsletter.id,
    content: newsletter.content,
    ...campaignSettings(form, ctx.tenant.timeZone),
  };
  try {
    if (form.intent === "preview") {
      const preview = await previewCampaign(ctx, input);
      return data<ActionAnswer>({ kind: "preview", ...preview, values });
    }
    if (form.intent === "test") {
      // Without the field (an older form), the test goes to the staff member, as it always did.
      const to = testRecipientsSchema.safeParse(formData.get("testRecipients") ?? user.email);
      if (!to.success) return fail({ testRecipients: [to.error.issues[0]?.message ?? ""] }, []);
      await sendCampaignTests(ctx, input, { staffId: user.id, to: to.data });
      return data<ActionAnswer>({ kind: "tested", to: to.data, values });
    }
    // Nothing goes out unreviewed (issue 16, point 7): "Send to N recipients" sends while N still
    // holds; before a review, or when the audience changed since, the review is shown (again).
    if (form.mode !== "draft" || form.intent === "review") {
      const review = await reviewCampaign(ctx, input);
      const confirmed = form.intent === "create" ? form.confirmedRecipients : undefined;
      if (confirmed !== review.recipients || form.confirmedAudience !== review.audience) {
        return data<ActionAnswer>({
          kind: "review",
          ...review,
          changed: confirmed !== undefined,
          values,
        });
      }
    }
    const sent = await sendAsCampaign(ctx, input, {
      userId: context.get(userContext)?.id ?? null,
      worker: scopeOf(context).worker,
    });
    // MailerLite's campaigns have no page here: the list shows them.
    throw redirect(
      sent.provider === "mailerlite" ? "/admin/campaigns" : `/admin/campaigns/${sent.campaign.id}`,
      303,
    );
  } catch (error) {
    if (error instanceof CampaignError) return fail({}, [error.message], error.status);
    if (error instanceof TestSendLimitError) return fail({}, [error.message], 429);
    if (error instanceof ProviderError) {
      return fail(error.fields, [error.message], API_STATUS[error.status]);
    }
    if (error instanceof MailNotSentError) {
      return fail({}, ["Failed to send email. Please try again."], 503);
    }
    throw error;
  }
}
