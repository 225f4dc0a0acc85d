import { join } from "node:path";
import SQLite from "better-sqlite3";
import { createDb } from "../../server/db";
import { getLogger } from "../../server/logger";
import { outboxTransport } from "../../server/mail/transport";
import { signUp } from "../../server/subscribers/signup";
import { getTenant } from "../../server/tenants/store";
import { expect, type Page, test } from "./fixtures";

function databasePath(): string {
  const dataDir = process.env.E2E_DATA_DIR;
  if (!dataDir) throw new Error("E2E_DATA_DIR is not set (see playwright.config.ts)");
  return join(dataDir, "herald.db");
}

/**
 * A subscriber of `main` on `lists`, straight in the e2e server's database (migrated by the server
 * already). The e2e server has no SMTP_URL: its mail goes to the outbox (mail_log), like ours here.
 */
async function seedSubscriber(lists: string[]): Promise<string> {
  // Unique per attempt, so a retry does not trip over the first attempt's subscriber.
  const email = `reader-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`;
  const db = createDb(`file:${databasePath()}`);
  try {
    const tenant = (await getTenant(db, "main")).config;
    await signUp(
      {
        db,
        logger: getLogger(),
        transport: outboxTransport(),
        // Seeding skips double opt-in; the pages under test come after it.
        tenant: { ...tenant, features: { ...tenant.features, doubleOptIn: false } },
        origin: "http://localhost",
        sessionSecret: "e2e-seeding-only-e2e-seeding-only-0123",
      },
      { email, lists },
    );
  } finally {
    await db.destroy();
  }
  return email;
}

/**
 * The link in the newest email of `kind` to `email`, read from the outbox (`path` starts it). Links
 * asked for on the pages go out just after the page answers, so this waits a little for them.
 */
async function mailedLink(email: string, kind: string, path: string): Promise<string> {
  const pattern = new RegExp(`https?://[^\\s\\])]+${path}[^\\s\\])]*`);
  const find = () => {
    const db = new SQLite(databasePath(), { readonly: true });
    try {
      const row = db
        .prepare(
          "select text from mail_log where to_address = ? and kind = ? order by id desc limit 1",
        )
        .get(email, kind) as { text: string } | undefined;
      return row?.text.match(pattern)?.[0] ?? null;
    } finally {
      db.close();
    }
  };
  await expect.poll(find, { message: `a ${kind} email to ${email} in the outbox` }).not.toBeNull();
  const link = new URL(find() ?? "");
  return `${link.pathname}${link.search}`;
}

const verificationLink = (email: string) =>
  mailedLink(email, "verification", "/subscription/preferences\\?");

const listBox = (page: Page, name: string) => page.getByRole("checkbox", { name, exact: true });

test("a subscriber changes their newsletters through the emailed verification link", async ({
  page,
}) => {
  const email = await seedSubscriber(["newsletter"]);

  await page.goto("/subscription/preferences");
  await expect(
    page.getByRole("heading", { level: 2, name: "Find Your Subscription" }),
  ).toBeVisible();
  await page.getByLabel("Email address").fill(email);
  await page.getByRole("button", { name: "Find Subscription" }).click();
  // The page tells nobody whether the address is subscribed: the link goes to the inbox.
  await expect(page.getByText("Check your inbox")).toBeVisible();
  await page.goto(await mailedLink(email, "preferences-link", "/preferences/"));
  await expect(page.getByRole("heading", { name: "Your newsletters" })).toBeVisible();
  await expect(page.getByText(`Subscriptions of ${email}`)).toBeVisible();
  // The centre ships no script file (issue 35): plain forms and the one inline enhancements script.
  await expect(page.locator("script[src], link[rel=modulepreload]")).toHaveCount(0);
  await expect(page.locator("script")).toHaveCount(1);

  await expect(listBox(page, "KeyDiscovery Newsletter")).toBeChecked();
  await expect(listBox(page, "Industry News")).not.toBeChecked();
  // Nothing changed yet: Save says so and cannot be pressed.
  const noChanges = page.getByRole("button", { name: "No Changes to Save" });
  await expect(noChanges).toBeVisible();
  await expect(noChanges).toBeDisabled();

  await listBox(page, "Industry News").check();
  const save = page.getByRole("button", { name: "Save Changes" });
  await expect(save).toBeEnabled();
  // Unticking it again is no change.
  await listBox(page, "Industry News").uncheck();
  await expect(noChanges).toBeDisabled();
  await listBox(page, "Industry News").check();
  await save.click();

  const review = page.getByRole("region", { name: "Confirm Your Changes" });
  await expect(review).toBeVisible();
  await expect(review.getByText("You will join")).toBeVisible();
  await expect(review.getByRole("listitem")).toHaveText(["Industry News"]);
  await expect(review.getByRole("heading", { name: "Confirm Your Changes" })).toBeFocused();
  await review.getByRole("button", { name: "Send Verification Email" }).click();
  await expect(page.getByRole("heading", { name: "Verification Email Sent" })).toBeVisible();
  await expect(page.getByText("valid for 24 hours")).toBeVisible();
  // Nothing changes before the link is opened.
  await expect(listBox(page, "Industry News")).not.toBeChecked();

  await page.goto(await verificationLink(email));
  await expect(page.getByRole("heading", { level: 1, name: "Confirm your changes" })).toBeVisible();
  await page.getByRole("button", { name: "Confirm my changes" }).click();
  await expect(page.getByText("Your preferences have been updated.")).toBeVisible();
  await expect(listBox(page, "KeyDiscovery Newsletter")).toBeChecked();
  await expect(listBox(page, "Industry News")).toBeChecked();
  await expect(listBox(page, "KeyDiscovery Updates")).not.toBeChecked();
  await expect(page.getByRole("button", { name: "No Changes to Save" })).toBeDisabled();

  // The link works once.
  await page.goto(await verificationLink(email));
  await page.getByRole("button", { name: "Confirm my changes" }).click();
  await expect(
    page.getByText("Invalid or expired verification link. Please try again."),
  ).toBeVisible();
});

test("the preference flow works without JavaScript", async ({ browser, extraHTTPHeaders }) => {
  const email = await seedSubscriber(["newsletter", "industry-news"]);
  const context = await browser.newContext({ javaScriptEnabled: false, extraHTTPHeaders });
  const page = await context.newPage();
  await page.goto(`/preferences?email=${encodeURIComponent(email)}`);
  await expect(page).toHaveURL(/\/subscription\/preferences\?email=/);
  await page.getByRole("button", { name: "Find Subscription" }).click();
  await expect(page.getByText("Check your inbox")).toBeVisible();
  await page.goto(await mailedLink(email, "preferences-link", "/preferences/"));
  // Without JavaScript Save is a plain submit button.
  await expect(page.getByRole("button", { name: "Save Changes" })).toBeEnabled();
  await page.getByRole("button", { name: "Unsubscribe from All" }).click();
  await expect(page.getByRole("heading", { name: "Confirm Your Changes" })).toBeVisible();
  await expect(page.getByText("You will no longer receive any of our newsletters")).toBeVisible();
  await page.getByRole("button", { name: "Send Verification Email" }).click();
  await expect(page.getByRole("heading", { name: "Verification Email Sent" })).toBeVisible();

  await page.goto(await verificationLink(email));
  await page.getByRole("button", { name: "Confirm my changes" }).click();
  await expect(page.getByText("Your preferences have been updated.")).toBeVisible();
  for (const name of ["KeyDiscovery Newsletter", "KeyDiscovery Updates", "Industry News"]) {
    await expect(listBox(page, name)).not.toBeChecked();
  }
  await context.close();
});

test("unsubscribing by address goes through a mailed link, then takes optional feedback", async ({
  page,
}) => {
  const email = await seedSubscriber(["newsletter"]);
  await page.goto("/subscription/unsubscribe");
  const button = page.getByRole("button", { name: "Unsubscribe from all newsletters" });
  await expect(button).toBeDisabled();
  await page.getByLabel("Email address").fill(email);
  await expect(button).toBeEnabled();
  await button.click();
  await expect(page.getByText("Check your inbox")).toBeVisible();
  await page.goto(await mailedLink(email, "unsubscribe-link", "/unsubscribe\\?"));
  await expect(page.getByText(`Stop all newsletters from KeyDiscovery to ${email}?`)).toBeVisible();
  await page.getByRole("button", { name: "Unsubscribe from all newsletters" }).click();
  await expect(page.getByText("Unsubscribed Successfully")).toBeVisible();

  const reasons = page.getByRole("group", { name: "Reason for unsubscribing" });
  await expect(reasons.getByRole("radio")).toHaveCount(5);
  // The box is for 'Other' only: hidden, and not sent, for any other reason.
  const details = page.getByLabel("Tell us more");
  await expect(details).toBeHidden();
  await page.getByRole("button", { name: "Send Feedback" }).click();
  await expect(page.getByText("Please choose a reason.")).toBeVisible();
  await reasons.getByRole("radio", { name: "Other" }).check();
  await details.fill("We changed firms.");
  await reasons.getByRole("radio", { name: "Too many emails" }).check();
  await expect(details).toBeHidden();
  await expect(details).toBeDisabled();
  await reasons.getByRole("radio", { name: "Other" }).check();
  await expect(details).toHaveValue("We changed firms.");
  await page.getByRole("button", { name: "Send Feedback" }).click();
  await expect(page.getByText("Thank you for your feedback.")).toBeVisible();

  // A reload keeps the answer and unsubscribes nobody twice.
  await page.reload();
  await expect(page.getByText("Unsubscribed Successfully")).toBeVisible();
  await expect(page.getByText("Thank you for your feedback.")).toBeVisible();

  const db = new SQLite(databasePath(), { readonly: true });
  const row = db
    .prepare(
      "select f.reason, f.details, s.status from unsubscribe_feedback f join subscribers s on s.id = f.subscriber_id where s.email = ?",
    )
    .get(email);
  db.close();
  expect(row).toEqual({ reason: "Other", details: "We changed firms.", status: "unsubscribed" });
});
