import { NodeSelection } from "@tiptap/pm/state";
import { type Editor, useEditorState } from "@tiptap/react";
import { useState } from "react";
import {
  CALLOUT_TONES,
  embedOf,
  MAX_BUTTON_LABEL_LENGTH,
  MAX_CALLOUT_ICON_LENGTH,
  MAX_CARD_DESCRIPTION_LENGTH,
  MAX_CARD_TITLE_LENGTH,
  webUrl,
} from "../../../shared/blocks";
import { safeLinkUrl } from "../../lib/safe-url";
import {
  type DialogAction,
  type DialogField,
  type DialogValues,
  EditorFormDialog,
} from "../editor-dialog";
import { type Audience, caretAfterBlock } from "./blocks";
import { Icon, Separator, ToolButton } from "./tool-button";

type BlockName = "buttonBlock" | "callout" | "bookmarkCard" | "embedCard";

interface Question {
  block: BlockName;
  /** editing the selected block, or inserting a new one */
  editing: boolean;
  values: DialogValues;
}

const TONE_LABELS: Record<(typeof CALLOUT_TONES)[number], string> = {
  info: "Blue (information)",
  success: "Green (good news)",
  warning: "Yellow (warning)",
  neutral: "Grey (aside)",
};

const FIELDS: Record<BlockName, { title: string; fields: DialogField[] }> = {
  buttonBlock: {
    title: "Button",
    fields: [
      { name: "label", label: "Label", required: true, maxLength: MAX_BUTTON_LABEL_LENGTH },
      {
        name: "href",
        label: "Web address",
        hint: "https://…, mailto:… or a path on this site.",
        type: "url",
        required: true,
      },
    ],
  },
  callout: {
    title: "Callout",
    fields: [
      {
        name: "icon",
        label: "Icon (optional)",
        hint: "An emoji such as 💡 or ⚠️, shown before the text.",
        maxLength: MAX_CALLOUT_ICON_LENGTH,
      },
      {
        name: "tone",
        label: "Colour",
        type: "select",
        choices: CALLOUT_TONES.map((tone) => ({ value: tone, label: TONE_LABELS[tone] })),
      },
    ],
  },
  bookmarkCard: {
    title: "Bookmark",
    fields: [
      { name: "url", label: "Web address", type: "url", required: true },
      { name: "title", label: "Title (optional)", maxLength: MAX_CARD_TITLE_LENGTH },
      {
        name: "description",
        label: "Description (optional)",
        type: "textarea",
        maxLength: MAX_CARD_DESCRIPTION_LENGTH,
      },
      { name: "image", label: "Image address (optional)", type: "url" },
    ],
  },
  embedCard: {
    title: "Video or post",
    fields: [
      {
        name: "url",
        label: "Web address",
        hint: "A YouTube or Vimeo video, or a post on X or LinkedIn. Readers get a linked card.",
        type: "url",
        required: true,
      },
      { name: "title", label: "Title (optional)", maxLength: MAX_CARD_TITLE_LENGTH },
      { name: "image", label: "Thumbnail address (optional)", type: "url" },
    ],
  },
};

/** The node a block's toolbar button acts on: the selected atom, or the callout around the caret. */
function selectedBlock(editor: Editor, block: BlockName) {
  const { selection } = editor.state;
  if (selection instanceof NodeSelection) {
    return selection.node.type.name === block ? selection.node : null;
  }
  if (block !== "callout") return null;
  const { $from } = selection;
  for (let depth = $from.depth; depth > 0; depth--) {
    if ($from.node(depth).type.name === "callout") return $from.node(depth);
  }
  return null;
}

/** Asks the server for a page's title, description and picture (its Open Graph tags). */
async function fetchPreview(previewUrl: string, url: string) {
  const response = await fetch(previewUrl, {
    method: "POST",
    headers: { Accept: "application/json" },
    body: new URLSearchParams({ url }),
  }).catch(() => null);
  const answer = (await response?.json().catch(() => null)) as Record<string, unknown> | null;
  const field = (name: string) => (typeof answer?.[name] === "string" ? answer[name] : "");
  return response?.ok
    ? {
        ok: true as const,
        title: field("title"),
        description: field("description"),
        image: field("image"),
      }
    : { ok: false as const, error: field("error") || "The page could not be read." };
}

/**
 * The toolbar's block buttons (issue 35, target 2) and the dialog each asks its fields in. A
 * block's button inserts it, or edits it when it is selected (a callout: when the caret is in it).
 */
export function BlockTools({
  editor,
  disabled,
  previewUrl,
  onNotice,
}: {
  editor: Editor | null;
  disabled: boolean;
  /** POST endpoint answering a page's title, description and image */
  previewUrl: string;
  onNotice: (notice: string) => void;
}) {
  const [question, setQuestion] = useState<Question | null>(null);
  const [notice, setNotice] = useState("");
  const state = useEditorState({
    editor,
    selector: ({ editor: current }) =>
      current
        ? {
            buttonBlock: Boolean(selectedBlock(current, "buttonBlock")),
            callout: Boolean(selectedBlock(current, "callout")),
            bookmarkCard: Boolean(selectedBlock(current, "bookmarkCard")),
            embedCard: Boolean(selectedBlock(current, "embedCard")),
            web: current.isActive("audienceSection", { audience: "web" }),
            email: current.isActive("audienceSection", { audience: "email" }),
          }
        : null,
  });

  function ask(block: BlockName) {
    if (!editor) return;
    const node = selectedBlock(editor, block);
    const defaults: DialogValues = block === "callout" ? { tone: CALLOUT_TONES[0] } : {};
    setNotice("");
    setQuestion({
      block,
      editing: Boolean(node),
      values: node ? { ...defaults, ...(node.attrs as DialogValues) } : defaults,
    });
  }

  function close(message = "") {
    setQuestion(null);
    onNotice(message);
    editor?.commands.focus();
  }

  /** The block's attributes from the dialog's values, or a message saying what is wrong. */
  function attributesOf(block: BlockName, values: DialogValues): Record<string, string> | string {
    const trimmed = Object.fromEntries(
      Object.entries(values).map(([key, value]) => [key, value.trim()]),
    );
    if (block === "callout") {
      return { icon: trimmed.icon ?? "", tone: trimmed.tone || CALLOUT_TONES[0] };
    }
    if (block === "buttonBlock") {
      const href = safeLinkUrl(trimmed.href ?? "");
      if (!trimmed.label) return "Give the button a label.";
      if (!href)
        return "Use a web address (https://…), an email (mailto:…) or a path on this site.";
      return { label: trimmed.label, href };
    }
    const url = webUrl(safeLinkUrl(trimmed.url ?? "") ?? "");
    if (!url) return "Use a web address starting with https:// or http://.";
    const image = trimmed.image ? webUrl(trimmed.image) : "";
    if (image === null) return "The image address must start with https:// or http://.";
    const card = {
      url,
      title: trimmed.title ?? "",
      description: trimmed.description ?? "",
      image,
      alt: "",
    };
    if (block === "bookmarkCard") return card;
    const embed = embedOf(url);
    if (!embed) return "That is not a YouTube, Vimeo, X or LinkedIn address: add it as a bookmark.";
    return { ...card, description: "", provider: embed.provider, image: image || embed.thumbnail };
  }

  function apply(values: DialogValues) {
    if (!editor || !question) return;
    const attributes = attributesOf(question.block, values);
    if (typeof attributes === "string") {
      setNotice(attributes);
      return;
    }
    const chain = editor.chain().focus();
    if (question.editing) chain.updateAttributes(question.block, attributes).run();
    else if (question.block === "callout") chain.wrapIn("callout", attributes).run();
    else
      chain
        .insertContent({ type: question.block, attrs: attributes })
        .command(caretAfterBlock)
        .run();
    close(`${FIELDS[question.block].title} ${question.editing ? "changed" : "added"}.`);
  }

  function actionsFor(current: Question): DialogAction[] {
    const actions: DialogAction[] = [];
    if (current.block === "bookmarkCard" || current.block === "embedCard") {
      actions.push({
        label: "Fill in from the page",
        onClick: async (values) => {
          const url = webUrl(safeLinkUrl(values.url ?? "") ?? "");
          if (!url) {
            setNotice("Enter the page's web address first.");
            return undefined;
          }
          setNotice("Reading the page…");
          const preview = await fetchPreview(previewUrl, url);
          if (!preview.ok) {
            setNotice(`${preview.error} Fill in the details by hand, or leave them blank.`);
            return undefined;
          }
          setNotice(preview.title ? `Found “${preview.title}”.` : "The page names no title.");
          return {
            ...values,
            url,
            title: values.title || preview.title,
            image: values.image || preview.image,
            ...(current.block === "bookmarkCard"
              ? { description: values.description || preview.description }
              : {}),
          };
        },
      });
    }
    if (current.editing) {
      const remove =
        current.block === "callout"
          ? () => editor?.chain().focus().lift("callout").run()
          : () => editor?.chain().focus().deleteSelection().run();
      actions.push({
        label: `Remove ${FIELDS[current.block].title.toLowerCase()}`,
        look: "danger",
        onClick: () => {
          remove();
          close(`${FIELDS[current.block].title} removed.`);
        },
      });
    }
    return actions;
  }

  function toggleSection(audience: Audience) {
    if (!editor) return;
    const active = editor.isActive("audienceSection", { audience });
    const chain = editor.chain().focus();
    if (active) chain.lift("audienceSection").run();
    else chain.wrapIn("audienceSection", { audience }).run();
    onNotice(
      active
        ? "Section now shown on the web and in the email."
        : `Section shown only ${audience === "web" ? "on the web" : "in the email"}.`,
    );
  }

  const tool = (block: BlockName, label: string, icon: string) => (
    <ToolButton
      label={label}
      pressed={state?.[block]}
      disabled={disabled}
      onClick={() => ask(block)}
    >
      <Icon path={icon} />
    </ToolButton>
  );

  return (
    <>
      <Separator />
      {tool("buttonBlock", "Button", "M4 8h16v8H4zM8 12h8")}
      <ToolButton
        label="Divider"
        disabled={disabled}
        onClick={() => editor?.chain().focus().setHorizontalRule().run()}
      >
        <Icon path="M3 12h18" />
      </ToolButton>
      {tool("callout", "Callout", "M4 5h16v11H9l-5 4zM12 8v3M12 13.5h.01")}
      {tool("bookmarkCard", "Bookmark", "M6 4h12v16l-6-4-6 4z")}
      {tool("embedCard", "Video or post", "M3 6h18v12H3zM10 9l5 3-5 3z")}
      {(["web", "email"] as const).map((audience) => (
        <ToolButton
          key={audience}
          label={audience === "web" ? "Web only" : "Email only"}
          title={`Show the selected blocks only ${audience === "web" ? "on the web page" : "in the email"}`}
          pressed={state?.[audience]}
          disabled={disabled}
          onClick={() => toggleSection(audience)}
          wide
        >
          {audience === "web" ? "Web" : "Email"}
        </ToolButton>
      ))}
      {question ? (
        <EditorFormDialog
          title={FIELDS[question.block].title}
          fields={FIELDS[question.block].fields}
          initialValues={question.values}
          confirmLabel={question.editing ? "Save" : "Insert"}
          actions={actionsFor(question)}
          notice={notice}
          onConfirm={apply}
          onCancel={() => close()}
        />
      ) : null}
    </>
  );
}
