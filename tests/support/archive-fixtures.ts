import { createServer, type Server } from "node:http";
import { strToU8, zipSync } from "fflate";
import { testPng } from "./images";

/*
 * Archives as Ghost and Substack write them (Ghost's `{db:[{meta,data}]}` JSON export; Substack's
 * export zip with posts.csv and posts/{post_id}.html), with the oddities real ones have: entities
 * in titles, a missing title, a post without a body, duplicate slugs, drafts, pages, scheduled
 * and members-only posts, Ghost's __GHOST_URL__ image paths, an image that is gone.
 */

/**
 * A local image host: counts each path's requests, 404 for /missing.png, HTML for /page.html,
 * a distinct PNG for each /bench-{n}.png.
 */
export interface ImageHost {
  base: string;
  hits: Map<string, number>;
  stop(): Promise<void>;
}

export async function startImageHost(host = "127.0.0.1"): Promise<ImageHost> {
  const hits = new Map<string, number>();
  const images: Record<string, Uint8Array> = {
    "/cover.png": testPng(640, 360),
    "/inline.png": testPng(320, 200),
    "/content/images/ghost-own.png": testPng(200, 100),
  };
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    hits.set(path, (hits.get(path) ?? 0) + 1);
    // The benchmark's images: /bench-{n}.png, each its own picture.
    const bench = /^\/bench-(\d{1,4})\.png$/.exec(path)?.[1];
    if (bench !== undefined) images[path] ??= testPng(800 + Number(bench), 450);
    const image = images[path];
    if (image) {
      res.writeHead(200, { "content-type": "image/png", "content-length": image.length });
      res.end(image);
    } else if (path === "/page.html") {
      res.writeHead(200, { "content-type": "text/html" });
      res.end("<p>not an image</p>");
    } else {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("gone");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    base: `http://${host}:${port}`,
    hits,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

const lexical = (base: string) =>
  JSON.stringify({
    root: {
      type: "root",
      children: [
        {
          type: "paragraph",
          children: [
            { type: "text", text: "Lexical opens with ", format: 0 },
            { type: "text", text: "bold words", format: 1 },
            { type: "text", text: " and ", format: 0 },
            {
              type: "link",
              url: "https://example.org/read",
              children: [{ type: "text", text: "a link", format: 0 }],
            },
          ],
        },
        { type: "heading", tag: "h2", children: [{ type: "text", text: "Lexical heading" }] },
        {
          type: "list",
          listType: "bullet",
          tag: "ul",
          children: [
            { type: "listitem", children: [{ type: "text", text: "first point" }] },
            { type: "listitem", children: [{ type: "text", text: "second point" }] },
          ],
        },
        { type: "quote", children: [{ type: "text", text: "A quoted line" }] },
        { type: "image", src: `${base}/inline.png`, altText: "Inline chart", caption: "" },
        { type: "codeblock", code: "const x = 1 < 2;", language: "js" },
        { type: "horizontalrule" },
        { type: "bookmark", url: "https://example.org" },
      ],
    },
  });

const mobiledoc = (base: string) =>
  JSON.stringify({
    version: "0.3.1",
    atoms: [],
    markups: [["strong"], ["a", ["href", "https://example.org/mobile"]]],
    cards: [
      ["image", { src: `${base}/cover.png`, alt: "Mobiledoc image", caption: "A caption" }],
      ["hr", {}],
      ["gallery", { images: [] }],
    ],
    sections: [
      [
        1,
        "p",
        [
          [0, [], 0, "Mobiledoc says "],
          [0, [0], 1, "strongly"],
          [0, [], 0, " and links "],
          [0, [1], 1, "here"],
        ],
      ],
      [1, "h2", [[0, [], 0, "Mobiledoc heading"]]],
      [3, "ol", [[[0, [], 0, "one"]], [[0, [], 0, "two"]]]],
      [10, 0],
      [10, 1],
      [10, 2],
    ],
  });

/** A Ghost 5 export of twelve posts and a page, images on `base`. */
export function ghostExport(base: string): string {
  const post = (fields: Record<string, unknown>) => ({
    uuid: "00000000-0000-4000-8000-000000000000",
    type: "post",
    status: "published",
    visibility: "public",
    featured: 0,
    created_at: "2021-03-01T09:00:00.000Z",
    updated_at: "2021-03-05T09:00:00.000Z",
    custom_excerpt: null,
    feature_image: null,
    html: null,
    lexical: null,
    mobiledoc: null,
    ...fields,
  });
  return JSON.stringify({
    db: [
      {
        meta: { exported_on: 1700000000000, version: "5.75.0" },
        data: {
          posts: [
            post({
              id: "p1",
              title: "Welcome &amp; hello",
              slug: "welcome",
              html: `<p>Our first Ghost post about archives.</p><p><img src="${base}/inline.png" alt="Inline"></p><script>alert(1)</script>`,
              custom_excerpt: "The very first one",
              feature_image: `${base}/cover.png`,
              published_at: "2021-03-04T10:00:00.000Z",
            }),
            post({
              id: "p2",
              title: "Written in Lexical",
              slug: "lexical-post",
              lexical: lexical(base),
              published_at: "2022-06-01T08:30:00.000Z",
            }),
            post({
              id: "p3",
              title: "Written in mobiledoc",
              slug: "mobiledoc-post",
              html: "",
              mobiledoc: mobiledoc(base),
              published_at: 1500000000000,
              created_at: 1499000000000,
            }),
            post({
              id: "p4",
              title: "An unfinished draft",
              slug: "draft-one",
              status: "draft",
              html: "<p>Not yet.</p>",
              published_at: null,
            }),
            post({
              id: "p5",
              title: "About us",
              slug: "about-us",
              type: "page",
              html: "<p>A page.</p>",
            }),
            post({
              id: "p6",
              title: "Welcome again",
              slug: "welcome",
              html: "<p>Same slug as the first.</p>",
              published_at: "2021-04-01T10:00:00.000Z",
            }),
            post({ id: "p7", title: "", slug: "untitled", html: "<p>No title here.</p>" }),
            post({ id: "p8", title: "Nothing inside", slug: "empty-post" }),
            post({
              id: "p9",
              title: "Coming soon",
              slug: "coming-soon",
              status: "scheduled",
              html: "<p>Later.</p>",
              published_at: "2030-01-01T00:00:00.000Z",
            }),
            post({
              id: "p10",
              title: "For members",
              slug: "members-only",
              visibility: "paid",
              html: "<p>Paid words.</p>",
              published_at: "2023-01-01T00:00:00.000Z",
            }),
            post({
              id: "p11",
              title: "Broken images",
              slug: "broken-images",
              html: `<p>Two images, one gone.</p><img src="${base}/missing.png"><img src="${base}/page.html"><img src="${base}/inline.png">`,
              feature_image: "__GHOST_URL__/content/images/ghost-own.png",
              published_at: "2023-02-01T00:00:00.000Z",
            }),
          ],
          posts_meta: [{ id: "m1", post_id: "p1", feature_image_alt: "A cover &amp; more" }],
          tags: [
            { id: "t1", name: "News", slug: "news", visibility: "public" },
            { id: "t2", name: "#hidden", slug: "hash-hidden", visibility: "internal" },
            { id: "t3", name: "Case Law", slug: "case-law", visibility: "public" },
          ],
          posts_tags: [
            { id: "pt1", post_id: "p1", tag_id: "t3", sort_order: 1 },
            { id: "pt2", post_id: "p1", tag_id: "t1", sort_order: 0 },
            { id: "pt3", post_id: "p1", tag_id: "t2", sort_order: 2 },
            { id: "pt4", post_id: "p2", tag_id: "t1", sort_order: 0 },
          ],
          users: [
            { id: "u1", name: "Jane Ghostwriter", slug: "jane", email: "jane@ghost.example" },
            { id: "u2", name: "Ed Itor", slug: "ed", email: "Editor@Example.com" },
          ],
          posts_authors: [
            { id: "pa1", post_id: "p1", author_id: "u1", sort_order: 0 },
            { id: "pa2", post_id: "p2", author_id: "u2", sort_order: 0 },
            { id: "pa3", post_id: "p2", author_id: "u1", sort_order: 1 },
          ],
        },
      },
    ],
  });
}

/** A Substack export zip: posts.csv and the posts' HTML files, images on `base`. */
export function substackExport(base: string): Uint8Array {
  const csv = [
    "post_id,post_date,is_published,email_sent_at,inbox_sent_at,type,audience,title,subtitle,podcast_url",
    `101.first-issue,2022-01-10T12:00:00.000Z,true,2022-01-10T12:00:00.000Z,,newsletter,everyone,"First &amp; best issue","The subtitle, with a comma",`,
    "102.paid-post,2022-02-10T12:00:00.000Z,true,,,newsletter,only_paid,Paid one,,",
    "103.,2022-03-10T12:00:00.000Z,false,,,newsletter,everyone,A Substack draft,,",
    "104.a-thread,2022-04-10T12:00:00.000Z,true,,,thread,everyone,Open thread,,",
    "105.no-html,2022-05-10T12:00:00.000Z,true,,,newsletter,everyone,No body file,,",
    "106.first-issue,2022-06-10T12:00:00.000Z,true,,,newsletter,everyone,First issue again,,",
  ].join("\n");
  const files: Record<string, Uint8Array> = {
    "posts.csv": strToU8(csv),
    "posts/101.first-issue.html": strToU8(
      `<div class="body"><p>Substack's first words.</p><figure><img src="${base}/cover.png" alt="Substack image"></figure></div>`,
    ),
    "posts/102.paid-post.html": strToU8("<p>Only for paying readers.</p>"),
    "posts/103..html": strToU8("<p>A draft on Substack.</p>"),
    "posts/104.a-thread.html": strToU8("<p>Chat.</p>"),
    "posts/106.first-issue.html": strToU8("<p>Again.</p>"),
    "email_list.csv": strToU8("email,active_subscription\nreader@example.com,false\n"),
  };
  return zipSync(files);
}

/** A Ghost export of `count` published posts of about 600 words each, with 5 tags in turn. */
export function largeGhostExport(count: number): string {
  const paragraph =
    "Discovery teams sort documents, privilege logs and productions under deadlines that do not move. ".repeat(
      6,
    );
  const posts = Array.from({ length: count }, (_, n) => ({
    id: `p${n}`,
    uuid: `uuid-${n}`,
    title: `Archive post number ${n + 1}`,
    slug: `archive-post-${n + 1}`,
    type: "post",
    status: n % 10 === 9 ? "draft" : "published",
    visibility: "public",
    html: Array.from({ length: 10 }, () => `<p>${paragraph}</p>`).join(""),
    custom_excerpt: `Post ${n + 1} of the archive`,
    created_at: new Date(Date.UTC(2015, 0, 1) + n * 86_400_000).toISOString(),
    published_at: new Date(Date.UTC(2015, 0, 1) + n * 86_400_000).toISOString(),
  }));
  const tags = ["News", "Case law", "Guides", "Events", "Product"].map((name, n) => ({
    id: `t${n}`,
    name,
    slug: name.toLowerCase().replace(/ /g, "-"),
  }));
  return JSON.stringify({
    db: [
      {
        meta: { exported_on: Date.now(), version: "5.75.0" },
        data: {
          posts,
          tags,
          posts_tags: posts.map((post, n) => ({ post_id: post.id, tag_id: `t${n % 5}` })),
          users: [{ id: "u1", name: "Archive Author", email: "author@ghost.example" }],
          posts_authors: posts.map((post) => ({ post_id: post.id, author_id: "u1" })),
        },
      },
    ],
  });
}
