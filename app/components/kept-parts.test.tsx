import type { ReactNode } from "react";
import { renderToString } from "react-dom/server";
import {
  createStaticHandler,
  createStaticRouter,
  type RouteObject,
  StaticRouterProvider,
} from "react-router";
import { describe, expect, it } from "vitest";
import { type PageKeptParts, pageKeptParts } from "../lib/markup.server";
import { Kept, KeptMarkupContext, PageScriptsContext } from "../lib/page-scripts";
import { AdminHeader } from "./admin-header";
import { HeroIssue } from "./hero-issue";
import { NewsletterCard } from "./newsletter-card";
import { CommentsSection } from "./newsletter-comments";
import { SignupForm } from "./signup-form";
import { SiteFooter } from "./site-footer";
import { SiteHeader } from "./site-header";

/*
 * Issue 34, target 2: a kept part's markup can never reach a visitor it was not rendered for. Each
 * kept part of the site is rendered for one visitor, then for another with different per-visitor
 * inputs (signed in or not, as whom, what they submitted, where they are), through one store as
 * app/entry.server.tsx uses it; the second visitor must get exactly what a render without any
 * kept markup gives them, and none of the first visitor's values.
 */

interface Visitor {
  path: string;
  /** what the root's loader gives every page (the signed-in user, the tenant) */
  root: unknown;
  page: () => ReactNode;
  /** a value only this visitor may see, if the part shows one */
  own?: string;
}

async function renderFor(visitor: Visitor, store: PageKeptParts | null, scripts: boolean) {
  // One route, "root" as the app's, matching every path.
  const routes: RouteObject[] = [
    { id: "root", path: "*", loader: () => visitor.root, element: visitor.page() },
  ];
  const handler = createStaticHandler(routes);
  const context = await handler.query(new Request(`http://herald.test${visitor.path}`));
  if (context instanceof Response) throw new Error(`the page answered ${context.status}`);
  const html = renderToString(
    <KeptMarkupContext value={store}>
      <PageScriptsContext value={scripts}>
        <StaticRouterProvider router={createStaticRouter(routes, context)} context={context} />
      </PageScriptsContext>
    </KeptMarkupContext>,
  );
  const failures: string[] = [];
  store?.keep((key) => failures.push(key));
  expect(failures).toEqual([]);
  // The page's own markup, without the router's data: what the visitor sees.
  return html.replace(/^<script>window\.__staticRouterHydrationData.*?<\/script>/, "");
}

/** Visitor `a` then `b` through one store: b gets what b would get with nothing kept. */
async function expectNoSharing(a: Visitor, b: Visitor) {
  let hits = 0;
  for (const scripts of [false, true]) {
    const kept = pageKeptParts(scripts);
    const store: PageKeptParts = {
      ...kept,
      get(key) {
        const markup = kept.get(key);
        if (markup !== undefined) hits += 1;
        return markup;
      },
    };
    const aFresh = await renderFor(a, null, scripts);
    expect(await renderFor(a, store, scripts)).toBe(aFresh);
    expect(await renderFor(a, store, scripts)).toBe(aFresh); // now from what was kept
    const bFresh = await renderFor(b, null, scripts);
    expect(bFresh).not.toBe(aFresh); // the two visitors' pages differ at all
    expect(await renderFor(b, store, scripts)).toBe(bFresh);
    expect(await renderFor(b, store, scripts)).toBe(bFresh);
    if (a.own) {
      expect(aFresh).toContain(a.own);
      expect(bFresh).not.toContain(a.own);
    }
    // and the first visitor still gets their own
    expect(await renderFor(a, store, scripts)).toBe(aFresh);
  }
  expect(hits).toBeGreaterThan(0); // kept markup was served, not only fresh renders
}

const anonymous = { user: null, tenant: { companyName: "Acme" } };
const signedIn = (email: string, isSuperAdmin = false) => ({
  user: { email, isSuperAdmin },
  tenant: { companyName: "Acme" },
});

describe("kept parts for two visitors", () => {
  it("site header: anonymous, then signed in; one page, then another", async () => {
    const header = (user: { email: string } | null) => () => (
      <SiteHeader companyName="Acme" logoUrl="" user={user} />
    );
    await expectNoSharing(
      { path: "/", root: anonymous, page: header(null) },
      { path: "/about", root: anonymous, page: header(null) },
    );
    await expectNoSharing(
      { path: "/about", root: anonymous, page: header(null) },
      {
        path: "/about",
        root: signedIn("bob@example.com"),
        page: header({ email: "bob@example.com" }),
      },
    );
  });

  it("site footer: one tenant's, then another's", async () => {
    await expectNoSharing(
      {
        path: "/",
        root: anonymous,
        page: () => <SiteFooter companyName="Alice & Co" companyAddress="1 Alice Street" />,
        own: "1 Alice Street",
      },
      {
        path: "/",
        root: anonymous,
        page: () => <SiteFooter companyName="Bob Ltd" companyAddress="" />,
      },
    );
  });

  it("staff header: a super admin's tabs, then a staff member's; one tab, then another", async () => {
    const header = () => <AdminHeader title="Subscribers" />;
    await expectNoSharing(
      {
        path: "/admin/users",
        root: signedIn("alice@example.com", true),
        page: header,
        own: "Staff users",
      },
      { path: "/admin/subscribers", root: signedIn("bob@example.com"), page: header },
    );
  });

  it("newsletter card: its counts as one visitor saw them, then as the next did", async () => {
    const card = (views: number, editHref: string) => () => (
      <NewsletterCard
        newsletter={{
          id: "n1",
          title: "Launch",
          excerpt: "What is new",
          date: "2026-11-01T00:00:00.000Z",
          status: "published",
          metrics: { views, comments: 2 },
          slug: "launch",
        }}
        links={{ editHref, viewHref: "/newsletter/launch" }}
        sendHref="/admin/campaigns/new?newsletter=n1"
      />
    );
    await expectNoSharing(
      {
        path: "/admin/dashboard",
        root: signedIn("alice@example.com"),
        page: card(1_204, "/admin/newsletters/n1?token=alice-csrf"),
        own: "alice-csrf",
      },
      {
        path: "/admin/dashboard",
        root: signedIn("bob@example.com"),
        page: card(1_205, "/admin/newsletters/n1?token=bob-csrf"),
      },
    );
  });

  it("comment form: what one reader typed and was told, then an empty form for the next", async () => {
    const comments =
      (reply: Parameters<typeof CommentsSection>[0]["reply"], posted = false) =>
      () => (
        <CommentsSection
          newsletterSlug="launch"
          comments={[]}
          commentCount={0}
          commentsShown={200}
          canModerate={false}
          reply={reply}
          posted={posted}
          listMarkup={null}
        />
      );
    const aliceTyped = {
      ok: false as const,
      result: {
        status: "error" as const,
        initialValue: { text: "Alice's private draft" },
        error: { "": ["Please wait a minute."] },
      },
    };
    await expectNoSharing(
      {
        path: "/newsletter/launch",
        root: anonymous,
        page: comments(aliceTyped),
        own: "Alice&#x27;s private draft",
      },
      { path: "/newsletter/launch", root: anonymous, page: comments(undefined) },
    );
    await expectNoSharing(
      { path: "/newsletter/launch", root: anonymous, page: comments(undefined) },
      { path: "/newsletter/other", root: anonymous, page: comments(undefined, true) },
    );
  });

  it("sign-up form: one visitor's address and errors, then another's page and lists", async () => {
    const lists = [
      { key: "news", name: "News", description: "Monthly" },
      { key: "offers", name: "Offers", description: "" },
    ];
    const form =
      (answer: Parameters<typeof SignupForm>[0]["answer"], compact = false, offered = lists) =>
      () => <SignupForm lists={offered} defaultList="news" compact={compact} answer={answer} />;
    const aliceTyped = {
      ok: false as const,
      result: {
        status: "error" as const,
        initialValue: { email: "alice@example.com", name: "Alice", lists: ["offers"] },
        error: { email: ["Enter a valid email address"] },
      },
    };
    await expectNoSharing(
      { path: "/newsletter", root: anonymous, page: form(aliceTyped), own: "alice@example.com" },
      { path: "/newsletter", root: anonymous, page: form(null) },
    );
    await expectNoSharing(
      { path: "/", root: anonymous, page: form(null, true) },
      { path: "/about", root: anonymous, page: form(null, true, lists.slice(1)) },
    );
  });

  it("home page's hero issue: one tenant's newest issue, then another's, then none", async () => {
    const issue = (title: string, slug: string) => ({
      id: slug,
      slug,
      title,
      excerpt: `${title}, in short`,
      date: "2026-11-01T00:00:00.000Z",
      readTime: 4,
      tags: [],
      cover: null,
    });
    const hero = (shown: ReturnType<typeof issue> | null) => () => (
      <Kept as="div" props={{}} part={HeroIssue} data={{ issue: shown }} />
    );
    await expectNoSharing(
      { path: "/", root: anonymous, page: hero(issue("Alice's issue", "alice")), own: "alice" },
      { path: "/", root: anonymous, page: hero(issue("Bob's issue", "bob")) },
    );
    await expectNoSharing(
      { path: "/", root: anonymous, page: hero(issue("Alice's issue", "alice")), own: "alice" },
      { path: "/", root: anonymous, page: hero(null) },
    );
  });

  it("any part: a signed-in name, a timed honeypot value, a token given to it stay that visitor's", async () => {
    const part = (visitor: { name: string; honeypot: string; token: string }) => () => (
      <Kept as="form" props={{ method: "post" }} part={VisitorFields} data={visitor} />
    );
    await expectNoSharing(
      {
        path: "/",
        root: anonymous,
        page: part({ name: "Alice", honeypot: "1764230000:alice", token: "alice-token" }),
        own: "alice-token",
      },
      {
        path: "/",
        root: anonymous,
        page: part({ name: "Bob", honeypot: "1764230042:bob", token: "bob-token" }),
      },
    );
  });
});

function VisitorFields({
  name,
  honeypot,
  token,
}: {
  name: string;
  honeypot: string;
  token: string;
}) {
  return (
    <>
      <p>Signed in as {name}</p>
      <input type="hidden" name="started" value={honeypot} />
      <input type="hidden" name="csrf" value={token} />
    </>
  );
}
