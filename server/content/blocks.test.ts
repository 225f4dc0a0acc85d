import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { embedOf } from "../../shared/blocks";
import { renderCampaignEmail } from "../emails/campaign";
import { emailContentHtml } from "../emails/content";
import { sanitizeNewsletterHtml } from "../newsletters/sanitize";
import { DEFAULT_TENANT_CONFIG } from "../tenants/config";
import { pageContentHtml } from "./blocks";

/** Each block as the editor stores it (shared/blocks.ts). */
const BLOCKS = {
  button: '<div data-block="button"><a href="https://example.com/join">Join the club</a></div>',
  divider: "<hr>",
  callout:
    '<div data-block="callout" data-tone="warning" data-icon="⚠️"><p>Mind the <strong>gap</strong></p></div>',
  image:
    '<figure><img src="https://cdn.example.com/chart.png" alt="Sales by month" width="1200" height="600"><figcaption>Sales rose in May</figcaption></figure>',
  bookmark:
    '<div data-block="bookmark"><a href="https://example.org/post"><img data-part="image" src="https://example.org/og.png" alt=""><span data-part="title">A good read</span><span data-part="description">Why it matters</span><span data-part="site">example.org</span></a></div>',
  embed:
    '<div data-block="embed" data-provider="youtube"><a href="https://www.youtube.com/watch?v=dQw4w9WgXcQ"><img data-part="image" src="https://i.ytimg.com/vi/dQw4w9WgXcQ/hqdefault.jpg" alt=""><span data-part="title">The talk</span><span data-part="site">Watch on YouTube</span></a></div>',
  webOnly: '<div data-block="web-only"><p>Comment below</p></div>',
  emailOnly: '<div data-block="email-only"><p>Reply to this mail</p></div>',
};
const ALL = Object.values(BLOCKS).join("");

const mail = (html: string) =>
  emailContentHtml(sanitizeNewsletterHtml(html), {
    origin: "https://news.example.com",
    textColor: "#18181b",
    linkColor: "#1d4ed8",
  });

/** The text part of a campaign carrying the content, as the sender renders it. */
async function textPart(html: string) {
  const { text } = await renderCampaignEmail(
    { ...DEFAULT_TENANT_CONFIG, id: "main" },
    {
      origin: "https://news.example.com",
      headline: "Issue 1",
      preheader: "",
      contentHtml: mail(html),
      viewInBrowserUrl: null,
      why: "",
      trackOpens: false,
    },
  );
  return text;
}

describe("the sanitiser and the blocks", () => {
  it("keeps every block as the editor stores it", () => {
    const clean = sanitizeNewsletterHtml(ALL);
    for (const kind of ["button", "callout", "bookmark", "embed", "web-only", "email-only"]) {
      expect(clean).toContain(`data-block="${kind}"`);
    }
    expect(clean).toContain('data-tone="warning" data-icon="⚠️"');
    expect(clean).toContain('data-provider="youtube"');
    expect(clean).toContain("<figcaption>Sales rose in May</figcaption>");
    expect(clean).toContain('<span data-part="title">A good read</span>');
    expect(clean).toContain('<img data-part="image" src="https://example.org/og.png"');
  });

  it("strips javascript: links, on* attributes, styles and unknown values from blocks", () => {
    const clean = sanitizeNewsletterHtml(
      '<div data-block="button" onclick="steal()" style="color:red"><a href="javascript:alert(1)" onmouseover="x()">Go</a></div>' +
        '<div data-block="callout" data-tone="purple" data-icon="💡💡💡💡💡💡💡💡💡💡💡💡" data-x="1"><p>t</p></div>' +
        '<div data-block="embed" data-provider="evil"><a href="https://x.com/a/status/1"><img data-part="title" src="javascript:alert(2)" onerror="x()"><span data-part="script">y</span></a></div>' +
        '<div data-block="iframe"><p>not a block</p></div><div class="layout"><p>pasted</p></div><a href="https://ok.example">after</a>',
    );
    expect(clean).not.toMatch(/javascript:|onclick|onmouseover|onerror|style=|data-x|evil|purple/);
    expect(clean).not.toContain('data-part="title" src');
    expect(clean).not.toContain('data-part="script"');
    expect(clean).toContain('data-icon="💡💡💡💡💡💡💡💡"');
    // A div that is no block loses its tag and keeps its text; the next tag closes rightly.
    expect(clean).toContain(
      '<p>not a block</p><p>pasted</p><a href="https://ok.example" rel="noopener noreferrer nofollow" target="_blank">after</a>',
    );
  });
});

describe("the sanitiser, on any mix of blocks and attacks", () => {
  const pieces = [
    ...Object.values(BLOCKS),
    '<div data-block="button" onclick="x()"><a href="javascript:alert(1)">x</a></div>',
    '<div data-block="callout" data-icon="<script>">',
    "</div>",
    '<div data-block="web-only"><div data-block="email-only">',
    '<span data-part="title" onmouseover="y()">t</span>',
    '<img data-part="image" src="javascript:1" onerror="z()">',
    "<div><p>pasted</p>",
    "text & <b>bold</b>",
  ];

  it("is stable (clean twice = clean once) and lets no script through", () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...pieces), { maxLength: 12 }), (parts) => {
        const once = sanitizeNewsletterHtml(parts.join(""));
        expect(sanitizeNewsletterHtml(once)).toBe(once);
        expect(once).not.toMatch(/javascript:|<script|\son\w+=/i);
        expect(mail(once)).not.toMatch(/javascript:|<script|\son\w+=|data-block="web-only"/i);
      }),
      { numRuns: 200 },
    );
  });
});

describe("the page", () => {
  it("leaves out email-only sections and keeps web-only ones", () => {
    const page = pageContentHtml(sanitizeNewsletterHtml(ALL));
    expect(page).not.toContain("Reply to this mail");
    expect(page).toContain("Comment below");
    expect(page).toContain('data-block="button"');
  });

  it("passes content without email-only sections through untouched", () => {
    const html = sanitizeNewsletterHtml(BLOCKS.button);
    expect(pageContentHtml(html)).toBe(html);
  });
});

describe("the mail", () => {
  it("makes the button a table cell Outlook fills with the colour", () => {
    expect(mail(BLOCKS.button)).toMatch(
      /<table role="presentation"[^>]*><tr><td align="center" bgcolor="#1d4ed8"[^>]*><a href="https:\/\/example.com\/join"[^>]*style="display:inline-block;[^"]*color:#ffffff;[^"]*">Join the club<\/a><\/td><\/tr><\/table>/,
    );
  });

  it("gives the divider, the callout and the captioned image inline styles, no flex or grid", () => {
    const html = mail(BLOCKS.divider + BLOCKS.callout + BLOCKS.image);
    expect(html).toContain('<hr style="border:0;border-top:1px solid #e4e4e7;margin:24px 0">');
    expect(html).toMatch(
      /<td bgcolor="#fdf3dc" style="background-color:#fdf3dc;border-left:4px solid #e3b650;/,
    );
    expect(html).toContain(
      '<p style="margin:0;"><span style="font-size:20px;line-height:20px;">⚠️</span>&nbsp;Mind the <strong>gap</strong></p>',
    );
    expect(html).toMatch(
      /<figure style="margin:0"><img src="https:\/\/cdn.example.com\/chart.png" alt="Sales by month" width="536" height="268"/,
    );
    expect(html).toContain("Sales rose in May</figcaption>");
    expect(html).not.toMatch(/display:\s*(flex|grid)|data-block/);
  });

  it("draws the bookmark and video cards as linked tables, without iframes", () => {
    const html = mail(BLOCKS.bookmark + BLOCKS.embed);
    expect(html).toMatch(/<a href="https:\/\/example.org\/post"[^>]*>A good read<\/a>/);
    expect(html).toContain("Why it matters</p>");
    expect(html).toMatch(/<img src="https:\/\/example.org\/og.png" alt="A good read" width="120"/);
    expect(html).toMatch(
      /<img src="https:\/\/i.ytimg.com\/vi\/dQw4w9WgXcQ\/hqdefault.jpg" alt="The talk" width="534"/,
    );
    expect(html).toMatch(/>▶ Watch on YouTube<\/a>/);
    expect(html).not.toMatch(/<iframe|<script/);
  });

  it("leaves out web-only sections and keeps email-only ones", () => {
    const html = mail(BLOCKS.webOnly + BLOCKS.emailOnly);
    expect(html).not.toContain("Comment below");
    expect(html).toContain("Reply to this mail");
  });

  it("makes blocks inside an email-only section tables too", () => {
    const html = mail(`<div data-block="email-only">${BLOCKS.button}</div>`);
    expect(html).toContain('bgcolor="#1d4ed8"');
    expect(html).not.toContain("data-block");
  });

  it("writes every block into the text part, each link once", async () => {
    const text = await textPart(ALL);
    expect(text).toContain("Join the club (https://example.com/join)");
    expect(text).toContain("-----");
    expect(text).toMatch(/⚠️\s+Mind the gap/);
    expect(text).toContain("Sales rose in May");
    expect(text).toContain("A good read (https://example.org/post)");
    expect(text).toContain("Why it matters");
    expect(text.match(/https:\/\/example.org\/post/g)).toHaveLength(1);
    expect(text).toContain("▶ Watch on YouTube (https://www.youtube.com/watch?v=dQw4w9WgXcQ)");
    expect(text.match(/youtube.com\/watch/g)).toHaveLength(1);
    expect(text).toContain("Reply to this mail");
    expect(text).not.toContain("Comment below");
  });
});

describe("video and social links", () => {
  it("knows the site, and a YouTube video's thumbnail", () => {
    expect(embedOf("https://youtu.be/dQw4w9WgXcQ")).toEqual({
      provider: "youtube",
      thumbnail: "https://i.ytimg.com/vi/dQw4w9WgXcQ/hqdefault.jpg",
    });
    expect(embedOf("https://www.youtube.com/shorts/abcdefghijk")?.thumbnail).toContain(
      "/vi/abcdefghijk/",
    );
    expect(embedOf("https://vimeo.com/76979871")?.provider).toBe("vimeo");
    expect(embedOf("https://twitter.com/a/status/1")?.provider).toBe("x");
    expect(embedOf("https://www.linkedin.com/posts/x")?.provider).toBe("linkedin");
    expect(embedOf("https://example.com/watch?v=1")).toBeNull();
    expect(embedOf("javascript:alert(1)//youtube.com")).toBeNull();
  });
});
