/*
 * Ghost keeps a post's body as Lexical (Ghost 5+) or mobiledoc (before) JSON, and its export
 * carries the rendered `html` beside it — except when it does not (a draft never rendered, a
 * hand-made or trimmed export). Then the body is rendered here: the common cards only
 * (paragraphs, headings, lists, quotes, images, links, code, rules, Ghost's HTML card); any other
 * card is left out with a note, so staff know what to look at. The result is sanitised with the
 * editor's rules afterwards, like everything that is stored.
 */

import { escapeHtml } from "../html-entities";

export interface RenderedBody {
  html: string;
  /** what could not be rendered, for the import's report */
  notes: string[];
}

const attribute = (name: string, value: unknown) =>
  typeof value === "string" && value !== "" ? ` ${name}="${escapeHtml(value)}"` : "";

function figure(src: unknown, alt: unknown, caption: unknown): string {
  if (typeof src !== "string" || src === "") return "";
  const image = `<img src="${escapeHtml(src)}"${attribute("alt", alt)}>`;
  // Captions are HTML in both formats; the sanitiser keeps what is allowed of them.
  return typeof caption === "string" && caption.trim() !== ""
    ? `<figure>${image}<figcaption>${caption}</figcaption></figure>`
    : `<figure>${image}</figure>`;
}

function codeBlock(code: unknown): string {
  return `<pre><code>${escapeHtml(typeof code === "string" ? code : "")}</code></pre>`;
}

/** Markdown is kept as its text, a paragraph per block: no Markdown renderer is bundled. */
function markdownAsText(markdown: unknown): string {
  if (typeof markdown !== "string") return "";
  return markdown
    .split(/\n\s*\n/)
    .map((block) => block.trim())
    .filter(Boolean)
    .map((block) => `<p>${escapeHtml(block).replace(/\n/g, "<br>")}</p>`)
    .join("");
}

// ---------------------------------------------------------------- Lexical

type LexicalNode = {
  type?: string;
  children?: LexicalNode[];
  [key: string]: unknown;
};

/** Lexical's text format bits, in the order the tags open. */
const TEXT_FORMATS: [number, string][] = [
  [1, "strong"],
  [2, "em"],
  [4, "s"],
  [8, "u"],
  [16, "code"],
  [32, "sub"],
  [64, "sup"],
];

export function renderLexical(source: string): RenderedBody {
  const notes = new Set<string>();
  let root: LexicalNode;
  try {
    root = (JSON.parse(source) as { root?: LexicalNode }).root ?? {};
  } catch {
    return { html: "", notes: ["The Lexical content could not be read."] };
  }
  const inline = (nodes: LexicalNode[] | undefined): string =>
    (nodes ?? []).map((node) => renderInline(node)).join("");
  const renderInline = (node: LexicalNode): string => {
    switch (node.type) {
      case "text":
      case "extended-text": {
        let html = escapeHtml(String(node.text ?? ""));
        const format = Number(node.format ?? 0);
        for (const [bit, tag] of [...TEXT_FORMATS].reverse()) {
          if (format & bit) html = `<${tag}>${html}</${tag}>`;
        }
        return html;
      }
      case "linebreak":
        return "<br>";
      case "link":
      case "autolink":
        return `<a${attribute("href", node.url)}>${inline(node.children)}</a>`;
      case "tab":
        return " ";
      default:
        return node.children ? inline(node.children) : "";
    }
  };
  const block = (node: LexicalNode): string => {
    switch (node.type) {
      case "paragraph":
      case "extended-paragraph": {
        const content = inline(node.children);
        return content ? `<p>${content}</p>` : "";
      }
      case "heading":
      case "extended-heading": {
        const level = /^h[1-6]$/.test(String(node.tag)) ? String(node.tag) : "h2";
        // The editor's headings go to h4: h5 and h6 become h4.
        const tag = level > "h4" ? "h4" : level;
        return `<${tag}>${inline(node.children)}</${tag}>`;
      }
      case "quote":
      case "extended-quote":
      case "aside":
        return `<blockquote><p>${inline(node.children)}</p></blockquote>`;
      case "list": {
        const tag = node.listType === "number" || node.tag === "ol" ? "ol" : "ul";
        const items = (node.children ?? []).map((item) => {
          // A nested list is a list item holding a list.
          const nested = (item.children ?? []).filter((child) => child.type === "list");
          const text = inline((item.children ?? []).filter((child) => child.type !== "list"));
          return `<li>${text}${nested.map(block).join("")}</li>`;
        });
        return `<${tag}>${items.join("")}</${tag}>`;
      }
      case "image":
        return figure(node.src, node.alt ?? node.altText, node.caption);
      case "horizontalrule":
        return "<hr>";
      case "codeblock":
        return codeBlock(node.code);
      case "html":
        return typeof node.html === "string" ? node.html : "";
      case "markdown":
        return markdownAsText(node.markdown);
      default:
        notes.add(`A “${String(node.type)}” card was left out.`);
        return "";
    }
  };
  const html = (root.children ?? []).map(block).join("");
  return { html, notes: [...notes] };
}

// ---------------------------------------------------------------- mobiledoc

type Marker = [number, number[], number, unknown];
type Mobiledoc = {
  atoms?: [string, string, unknown][];
  cards?: [string, Record<string, unknown>][];
  markups?: [string, string[]?][];
  sections?: unknown[][];
};

const MARKUP_TAGS = new Set(["a", "b", "strong", "em", "i", "u", "s", "code", "sub", "sup"]);
const SECTION_TAGS = new Set(["p", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "aside"]);

export function renderMobiledoc(source: string): RenderedBody {
  const notes = new Set<string>();
  let doc: Mobiledoc;
  try {
    doc = JSON.parse(source) as Mobiledoc;
  } catch {
    return { html: "", notes: ["The mobiledoc content could not be read."] };
  }
  const markups = doc.markups ?? [];
  const markers = (list: unknown): string => {
    const open: string[] = [];
    let html = "";
    for (const marker of Array.isArray(list) ? (list as Marker[]) : []) {
      const [kind, opens, closes, value] = marker;
      for (const index of opens ?? []) {
        const [tag = "", attrs = []] = markups[index] ?? [];
        const safe = MARKUP_TAGS.has(tag.toLowerCase()) ? tag.toLowerCase() : "span";
        let attributes = "";
        for (let at = 0; at + 1 < attrs.length; at += 2) {
          if (safe === "a" && attrs[at] === "href") attributes += attribute("href", attrs[at + 1]);
        }
        html += `<${safe}${attributes}>`;
        open.push(safe);
      }
      if (kind === 1) {
        // An atom (a soft line break, a mention): its text, or a line break.
        const atom = doc.atoms?.[Number(value)];
        html += atom?.[0] === "soft-return" ? "<br>" : escapeHtml(String(atom?.[1] ?? ""));
      } else {
        html += escapeHtml(String(value ?? ""));
      }
      for (let n = 0; n < closes && open.length > 0; n++) html += `</${open.pop()}>`;
    }
    while (open.length > 0) html += `</${open.pop()}>`;
    return html;
  };
  const card = (name: string, payload: Record<string, unknown>): string => {
    switch (name) {
      case "image":
        return figure(payload.src, payload.alt, payload.caption);
      case "hr":
        return "<hr>";
      case "code":
        return codeBlock(payload.code);
      case "html":
        return typeof payload.html === "string" ? payload.html : "";
      case "markdown":
      case "card-markdown":
        return markdownAsText(payload.markdown);
      default:
        notes.add(`A “${name}” card was left out.`);
        return "";
    }
  };
  const parts = (doc.sections ?? []).map((section) => {
    const [type, ...rest] = section;
    if (type === 1) {
      const tag = String(rest[0] ?? "p").toLowerCase();
      const safe = SECTION_TAGS.has(tag) ? tag : "p";
      const body = markers(rest[1]);
      if (safe === "blockquote" || safe === "aside") {
        return `<blockquote><p>${body}</p></blockquote>`;
      }
      const heading = /^h[56]$/.test(safe) ? "h4" : safe;
      return body || heading !== "p" ? `<${heading}>${body}</${heading}>` : "";
    }
    if (type === 2) return figure(rest[0], "", "");
    if (type === 3) {
      const tag = String(rest[0]).toLowerCase() === "ol" ? "ol" : "ul";
      const items = Array.isArray(rest[1]) ? rest[1] : [];
      return `<${tag}>${items.map((item) => `<li>${markers(item)}</li>`).join("")}</${tag}>`;
    }
    if (type === 10) {
      const [name = "", payload = {}] = doc.cards?.[Number(rest[0])] ?? [];
      return card(name, payload);
    }
    notes.add("A section of an unknown kind was left out.");
    return "";
  });
  return { html: parts.join(""), notes: [...notes] };
}
