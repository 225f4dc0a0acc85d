import { describe, expect, it } from "vitest";
import { withoutCopiedSender } from "./0033_one_sender_name";

describe("migration 0033: one sender name per tenant", () => {
  it("clears the old fixed default copied over a tenant sender of its own", () => {
    const fixed = withoutCopiedSender({
      email: { senderName: "KeyDiscovery Legal", senderEmail: "legal@kd.example" },
      emailTemplates: {
        welcomeEmail: {
          subject: "Hi",
          senderName: "KeyDiscovery",
          fromName: "KeyDiscovery",
          fromEmail: "newsletter@keydiscovery.com",
        },
        bounceNotificationEmail: { senderName: "Deliverability Desk" },
      },
    });
    expect(fixed?.emailTemplates).toEqual({
      welcomeEmail: { subject: "Hi" },
      bounceNotificationEmail: { senderName: "Deliverability Desk" },
    });
  });

  it("leaves a tenant whose own sender is the old default, or that has none, as it is", () => {
    const template = { senderName: "KeyDiscovery", fromEmail: "newsletter@keydiscovery.com" };
    expect(
      withoutCopiedSender({
        email: { senderName: "KeyDiscovery" },
        emailTemplates: { welcomeEmail: template },
      }),
    ).toBeNull();
    expect(withoutCopiedSender({ emailTemplates: { welcomeEmail: template } })).toBeNull();
    expect(withoutCopiedSender({})).toBeNull();
  });
});
