import Image from "@tiptap/extension-image";
import { NodeSelection, TextSelection } from "@tiptap/pm/state";
import { type Editor, EditorContent, useEditor, useEditorState } from "@tiptap/react";
import StarterKit from "@tiptap/starter-kit";
import { type KeyboardEvent, useEffect, useId, useRef, useState } from "react";
import { refuseImage, uploadImageFile } from "../lib/image-upload";
import { safeLinkUrl } from "../lib/safe-url";
import { BlockTools } from "./editor/block-tools";
import { BLOCK_EXTENSIONS, caretAfterBlock } from "./editor/blocks";
import { Icon, Separator, ToolButton } from "./editor/tool-button";
import { EditorDialog, EditorFormDialog } from "./editor-dialog";
import { ImageFileInput } from "./image-file-input";
import { SyncDomSelection } from "./sync-dom-selection";

interface NewsletterEditorProps {
  /** id of the control the "Content" label points at */
  id: string;
  /** id of that label, for the rich-text area (a label cannot point at a contenteditable) */
  labelId: string;
  name: string;
  defaultValue: string;
  invalid: boolean;
  /** ids of the hint and error messages */
  describedBy: string;
  /** POST endpoint for images (multipart field `file`, answers `{ url }`) */
  uploadUrl: string;
  /** POST endpoint answering a page's title, description and image (bookmark cards) */
  previewUrl?: string;
  /** called whenever the staff member changes the content */
  onChange?: () => void;
}

const controlClass =
  "block w-full rounded-brand border border-black/30 bg-surface px-3 py-2 font-mono text-sm text-ink shadow-sm focus:border-brand-strong aria-[invalid=true]:border-danger aria-[invalid=true]:ring-1 aria-[invalid=true]:ring-danger";

/**
 * The newsletter's Content field. The server renders a plain HTML <textarea> (20 rows), so the form
 * works before and without JavaScript; after hydration it becomes a TipTap rich-text editor that
 * posts its HTML through a hidden input, with an "HTML" toggle back to the source view.
 */
export function NewsletterEditor(props: NewsletterEditorProps) {
  const sourceRef = useRef<HTMLTextAreaElement>(null);
  const defaultValueRef = useRef(props.defaultValue);
  const [initialHtml, setInitialHtml] = useState<string | null>(null);

  // After hydration, once: the editor starts from whatever the textarea holds by then.
  useEffect(() => {
    setInitialHtml(sourceRef.current?.value ?? defaultValueRef.current);
  }, []);

  if (initialHtml === null) {
    return (
      <textarea
        ref={sourceRef}
        id={props.id}
        name={props.name}
        rows={20}
        required
        defaultValue={props.defaultValue}
        aria-invalid={props.invalid || undefined}
        aria-describedby={props.describedBy}
        className={controlClass}
      />
    );
  }
  return <RichTextEditor {...props} initialHtml={initialHtml} />;
}

function RichTextEditor({
  id,
  labelId,
  name,
  initialHtml,
  invalid,
  describedBy,
  uploadUrl,
  previewUrl = "/admin/link-preview",
  onChange,
}: NewsletterEditorProps & { initialHtml: string }) {
  const [html, setHtml] = useState(initialHtml);
  const [sourceView, setSourceView] = useState(false);
  const [notice, setNotice] = useState("");
  const [uploading, setUploading] = useState(false);
  const [question, setQuestion] = useState<
    | { kind: "link"; initial: string }
    | { kind: "alt"; file: File }
    | { kind: "describe"; image: SelectedImage }
    | null
  >(null);
  const fileRef = useRef<HTMLInputElement>(null);
  const onChangeRef = useRef(onChange);
  onChangeRef.current = onChange;
  const noticeId = useId();

  const attributes = {
    id,
    role: "textbox",
    "aria-multiline": "true",
    "aria-labelledby": labelId,
    "aria-describedby": `${describedBy} ${noticeId}`,
    "aria-invalid": invalid ? "true" : "false",
    class: `newsletter-editor-content min-h-[24rem] px-4 py-3 focus:outline-none ${CONTENT_STYLES}`,
  };

  // Images pasted or dropped into the text go through the same upload as the Image button.
  const insertImageRef = useRef<(file: File) => void>(() => undefined);

  const editor = useEditor({
    // The server rendered the textarea; the editor exists only in the browser.
    immediatelyRender: false,
    extensions: [
      StarterKit.configure({
        // The toolbar offers H2 and H3 (the page's title is the H1); stored H1/H4 survive.
        heading: { levels: [1, 2, 3, 4] },
        link: {
          openOnClick: false,
          // Links come from the Link button or a pasted URL, not from prose like "phone.one".
          autolink: false,
          defaultProtocol: "https",
          isAllowedUri: (url) => safeLinkUrl(url) !== null,
        },
      }),
      Image.configure({ allowBase64: false }),
      ...BLOCK_EXTENSIONS,
      SyncDomSelection,
    ],
    content: initialHtml,
    editorProps: editorPropsFor(attributes, insertImageRef),
    onUpdate: ({ editor: current }) => {
      setHtml(current.getHTML());
      onChangeRef.current?.();
    },
  });

  // The error state changes after a failed save: keep the editable area's ARIA in step.
  const attributesKey = JSON.stringify(attributes);
  useEffect(() => {
    if (editor && !editor.isDestroyed) {
      editor.setOptions({ editorProps: editorPropsFor(JSON.parse(attributesKey), insertImageRef) });
    }
  }, [editor, attributesKey]);

  const state = useEditorState({
    editor,
    selector: ({ editor: current }) =>
      current
        ? {
            heading2: current.isActive("heading", { level: 2 }),
            heading3: current.isActive("heading", { level: 3 }),
            bold: current.isActive("bold"),
            italic: current.isActive("italic"),
            bulletList: current.isActive("bulletList"),
            orderedList: current.isActive("orderedList"),
            blockquote: current.isActive("blockquote"),
            link: current.isActive("link"),
            canUndo: current.can().undo(),
            canRedo: current.can().redo(),
          }
        : null,
  });

  function toggleSourceView() {
    if (!editor) return;
    if (sourceView) {
      // Back to rich text: the editor takes the edited source, then shows its own HTML of it.
      editor.commands.setContent(html, { emitUpdate: false });
      setHtml(editor.getHTML());
      setSourceView(false);
      editor.commands.focus();
    } else {
      setHtml(readableHtml(editor.getHTML()));
      setSourceView(true);
    }
  }

  function editLink(current: Editor) {
    const previous = current.getAttributes("link").href as string | undefined;
    setQuestion({ kind: "link", initial: previous ?? "https://" });
  }

  function closeQuestion() {
    setQuestion(null);
    editor?.commands.focus();
  }

  function applyLink(current: Editor, input: string) {
    setQuestion(null);
    if (input.trim() === "" || input.trim() === "https://") {
      current.chain().focus().extendMarkRange("link").unsetLink().run();
      setNotice("Link removed.");
      return;
    }
    const href = safeLinkUrl(input);
    if (!href) {
      setNotice(
        "That link was not added: use a web address (https://…), an email (mailto:…) or a path on this site.",
      );
      return;
    }
    const chain = current.chain().focus().extendMarkRange("link");
    if (current.state.selection.empty && !current.isActive("link")) {
      // Nothing selected: insert the address itself as the link text.
      chain
        .insertContent({ type: "text", text: href, marks: [{ type: "link", attrs: { href } }] })
        .run();
    } else {
      // The caret goes after the link, so the next keystroke goes on writing, not over it.
      chain
        .setLink({ href })
        .command(({ tr }) => {
          tr.setSelection(TextSelection.near(tr.doc.resolve(tr.selection.to)));
          return true;
        })
        .run();
    }
    setNotice("");
  }

  /** An image chosen, pasted or dropped: checked here, then its alt text is asked for. */
  function insertImage(file: File) {
    if (!editor) return;
    const refused = refuseImage(file);
    if (refused) {
      setNotice(refused);
      return;
    }
    setQuestion({ kind: "alt", file });
  }

  insertImageRef.current = insertImage;

  /** The Image button with an image selected: its alt text and caption are edited, not replaced. */
  function imageButton() {
    const image = editor ? selectedImage(editor) : null;
    if (image) setQuestion({ kind: "describe", image });
    else fileRef.current?.click();
  }

  function describeImage(image: SelectedImage, alt: string, caption: string) {
    setQuestion(null);
    editor
      ?.chain()
      .focus()
      .insertContent(imageContent(image, alt, caption))
      .command(caretAfterBlock)
      .run();
    setNotice(alt.trim() ? "Image changed." : NO_ALT_WARNING);
  }

  async function uploadImage(file: File, alt: string, caption = "") {
    if (!editor) return;
    setQuestion(null);
    setUploading(true);
    setNotice("Uploading image…");
    try {
      const uploaded = await uploadImageFile(uploadUrl, file);
      if (!uploaded.ok) {
        setNotice(uploaded.error);
        return;
      }
      // The stored size goes with the image, so pages and mail reserve its room before it loads.
      const { url, width, height } = uploaded;
      const image = {
        src: url,
        width: width ? String(width) : "",
        height: height ? String(height) : "",
      };
      editor
        .chain()
        .focus()
        .insertContent(imageContent(image, alt, caption))
        .command(caretAfterBlock)
        .run();
      setNotice(alt.trim() ? "Image added." : NO_ALT_WARNING);
    } finally {
      setUploading(false);
    }
  }

  const disabled = !editor || sourceView;
  const run = (command: (current: Editor) => void) => () => {
    if (editor) command(editor);
  };

  return (
    <div
      className={`rounded-brand border bg-surface shadow-sm ${
        invalid ? "border-danger ring-1 ring-danger" : "border-black/30"
      }`}
    >
      <div
        role="toolbar"
        aria-label="Formatting"
        aria-controls={id}
        onKeyDown={moveFocusWithArrows}
        className="sticky top-[var(--save-bar-height,0px)] z-10 flex flex-wrap items-center gap-1 rounded-t-brand border-b border-black/15 bg-surface p-1.5 shadow-[inset_0_0_0_100vmax_rgb(0_0_0/0.03)]"
      >
        <ToolButton
          label="H2 heading"
          pressed={state?.heading2}
          disabled={disabled}
          onClick={run((e) => e.chain().focus().toggleHeading({ level: 2 }).run())}
        >
          H2
        </ToolButton>
        <ToolButton
          label="H3 heading"
          pressed={state?.heading3}
          disabled={disabled}
          onClick={run((e) => e.chain().focus().toggleHeading({ level: 3 }).run())}
        >
          H3
        </ToolButton>
        <Separator />
        <ToolButton
          label="Bold"
          pressed={state?.bold}
          disabled={disabled}
          onClick={run((e) => e.chain().focus().toggleBold().run())}
        >
          <span className="font-bold">B</span>
        </ToolButton>
        <ToolButton
          label="Italic"
          pressed={state?.italic}
          disabled={disabled}
          onClick={run((e) => e.chain().focus().toggleItalic().run())}
        >
          <span className="font-serif italic">I</span>
        </ToolButton>
        <Separator />
        <ToolButton
          label="Bullet list"
          pressed={state?.bulletList}
          disabled={disabled}
          onClick={run((e) => e.chain().focus().toggleBulletList().run())}
        >
          <Icon path="M9 6h11M9 12h11M9 18h11M4.5 6h.01M4.5 12h.01M4.5 18h.01" />
        </ToolButton>
        <ToolButton
          label="Numbered list"
          pressed={state?.orderedList}
          disabled={disabled}
          onClick={run((e) => e.chain().focus().toggleOrderedList().run())}
        >
          <Icon path="M10 6h10M10 12h10M10 18h10M4 4.5h1.5V9M4 9h3M4 14.5c.5-.7 2.8-.9 2.8.6 0 1.2-2.8 2-2.8 3.4h3" />
        </ToolButton>
        <ToolButton
          label="Quote"
          pressed={state?.blockquote}
          disabled={disabled}
          onClick={run((e) => e.chain().focus().toggleBlockquote().run())}
        >
          <Icon path="M7 7h4v4c0 3-1.5 5-4 6M14 7h4v4c0 3-1.5 5-4 6" />
        </ToolButton>
        <Separator />
        <ToolButton label="Link" pressed={state?.link} disabled={disabled} onClick={run(editLink)}>
          <Icon path="M10 14a4 4 0 0 0 5.7 0l3-3a4 4 0 0 0-5.7-5.7l-1 1M14 10a4 4 0 0 0-5.7 0l-3 3a4 4 0 0 0 5.7 5.7l1-1" />
        </ToolButton>
        <ToolButton label="Image" disabled={disabled || uploading} onClick={imageButton}>
          <Icon path="M4 5h16v14H4zM4 16l5-5 4 4 2-2 5 5M15 9.5h.01" />
        </ToolButton>
        <BlockTools
          editor={editor}
          disabled={disabled}
          previewUrl={previewUrl}
          onNotice={setNotice}
        />
        <Separator />
        <ToolButton
          label="Undo"
          disabled={disabled || !state?.canUndo}
          onClick={run((e) => e.chain().focus().undo().run())}
        >
          <Icon path="M9 14 4 9l5-5M4 9h10a6 6 0 0 1 0 12h-3" />
        </ToolButton>
        <ToolButton
          label="Redo"
          disabled={disabled || !state?.canRedo}
          onClick={run((e) => e.chain().focus().redo().run())}
        >
          <Icon path="m15 14 5-5-5-5M20 9H10a6 6 0 0 0 0 12h3" />
        </ToolButton>
        <span className="ml-auto" />
        <ToolButton
          label="HTML"
          title="Edit the HTML source"
          pressed={sourceView}
          disabled={!editor}
          onClick={toggleSourceView}
          wide
        >
          HTML
        </ToolButton>
      </div>

      <ImageFileInput ref={fileRef} onFile={insertImage} />

      <div hidden={sourceView}>
        <EditorContent editor={editor} />
      </div>
      {sourceView ? (
        <textarea
          id={`${id}-html`}
          name={name}
          rows={20}
          value={html}
          aria-labelledby={labelId}
          aria-describedby={`${describedBy} ${noticeId}`}
          aria-invalid={invalid || undefined}
          onChange={(event) => {
            setHtml(event.currentTarget.value);
            onChangeRef.current?.();
          }}
          className="block w-full border-0 bg-surface px-4 py-3 font-mono text-sm text-ink focus:outline-none"
        />
      ) : (
        <input type="hidden" name={name} value={html} />
      )}
      <p
        id={noticeId}
        aria-live="polite"
        className={notice ? "border-t border-black/15 px-4 py-2 text-sm font-medium" : "sr-only"}
      >
        {notice}
      </p>
      {question?.kind === "link" && editor ? (
        <EditorDialog
          title="Link"
          label="Web address"
          hint="https://…, mailto:… or a path on this site (/newsletter/…)."
          inputType="url"
          initialValue={question.initial}
          confirmLabel="Apply link"
          extra={
            editor.isActive("link")
              ? { label: "Remove link", onClick: () => applyLink(editor, "") }
              : undefined
          }
          onConfirm={(value) => applyLink(editor, value)}
          onCancel={closeQuestion}
        />
      ) : null}
      {question?.kind === "alt" || question?.kind === "describe" ? (
        <EditorFormDialog
          title="Describe the image"
          fields={IMAGE_FIELDS}
          initialValues={
            question.kind === "describe"
              ? { alt: question.image.alt, caption: question.image.caption }
              : { alt: "", caption: "" }
          }
          confirmLabel={question.kind === "alt" ? "Upload image" : "Save"}
          onConfirm={({ alt = "", caption = "" }) =>
            question.kind === "alt"
              ? void uploadImage(question.file, alt, caption)
              : describeImage(question.image, alt, caption)
          }
          onCancel={closeQuestion}
        />
      ) : null}
    </div>
  );
}

const IMAGE_FIELDS = [
  {
    name: "alt",
    label: "Alt text",
    hint: "What the image shows, for readers who cannot see it. Leave it blank only for a purely decorative image.",
  },
  { name: "caption", label: "Caption (optional)", hint: "Shown under the image." },
];

const NO_ALT_WARNING =
  "Image added without alt text: readers who cannot see it will not know what it shows. Select it and press Image to describe it.";

interface SelectedImage {
  src: string;
  alt: string;
  width: string;
  height: string;
  caption: string;
}

/** The selected image (with or without a caption), as the describe dialog edits it. */
function selectedImage(editor: Editor): SelectedImage | null {
  const { selection } = editor.state;
  if (!(selection instanceof NodeSelection)) return null;
  const { type, attrs } = selection.node;
  if (type.name !== "image" && type.name !== "captionedImage") return null;
  const text = (value: unknown) => (value === null || value === undefined ? "" : String(value));
  return {
    src: text(attrs.src),
    alt: text(attrs.alt),
    width: text(attrs.width),
    height: text(attrs.height),
    caption: text(attrs.caption),
  };
}

/** An image node: with a caption a <figure> (shared/blocks.ts), else a plain image. */
function imageContent(image: Omit<SelectedImage, "alt" | "caption">, alt: string, caption: string) {
  const size = image.width && image.height ? { width: image.width, height: image.height } : {};
  return caption.trim()
    ? {
        type: "captionedImage",
        attrs: { src: image.src, alt: alt.trim(), caption: caption.trim(), ...size },
      }
    : { type: "image", attrs: { src: image.src, alt: alt.trim(), ...size } };
}

/** Arrow keys, Home and End move between the toolbar's buttons (WAI-ARIA toolbar pattern). */
function moveFocusWithArrows(event: KeyboardEvent<HTMLDivElement>) {
  const keys = ["ArrowLeft", "ArrowRight", "Home", "End"];
  if (!keys.includes(event.key)) return;
  const buttons = [...event.currentTarget.querySelectorAll<HTMLButtonElement>("button")].filter(
    (button) => !button.disabled,
  );
  const index = buttons.indexOf(document.activeElement as HTMLButtonElement);
  if (index === -1 || buttons.length === 0) return;
  event.preventDefault();
  const next =
    event.key === "Home"
      ? 0
      : event.key === "End"
        ? buttons.length - 1
        : (index + (event.key === "ArrowRight" ? 1 : -1) + buttons.length) % buttons.length;
  buttons[next]?.focus();
}

/** One block per line in the source view; the editor writes everything on a single line. */
export function readableHtml(html: string): string {
  return html
    .replace(
      /(<\/(?:p|h[1-6]|blockquote|ul|ol|li|pre|figure|table|tr)>|<(?:hr|img)\b[^>]*>)(?!\n)/g,
      "$1\n",
    )
    .replace(/(<(?:ul|ol|blockquote)\b[^>]*>)(?!\n)/g, "$1\n")
    .trimEnd();
}

/** How the editable content looks: close to the published page, without a typography plugin. */
const CONTENT_STYLES = [
  // the editor's blocks: app/app.css
  "content-blocks leading-relaxed",
  "[&_p]:my-3",
  "[&_h1]:mt-6 [&_h1]:mb-3 [&_h1]:text-3xl [&_h1]:font-bold",
  "[&_h2]:mt-6 [&_h2]:mb-3 [&_h2]:text-2xl [&_h2]:font-bold",
  "[&_h3]:mt-5 [&_h3]:mb-2 [&_h3]:text-xl [&_h3]:font-semibold",
  "[&_h4]:mt-4 [&_h4]:mb-2 [&_h4]:text-lg [&_h4]:font-semibold",
  "[&_ul]:my-3 [&_ul]:list-disc [&_ul]:pl-6 [&_ol]:my-3 [&_ol]:list-decimal [&_ol]:pl-6",
  "[&_li_p]:my-1",
  "[&_blockquote]:my-4 [&_blockquote]:border-l-4 [&_blockquote]:border-brand [&_blockquote]:pl-4 [&_blockquote]:italic",
  "[&_a]:underline",
  "[&_img]:my-4 [&_img]:h-auto [&_img]:max-w-full [&_img]:rounded-brand",
  "[&_figure]:my-4 [&_figure_img]:mb-0 [&_figcaption]:mt-2 [&_figcaption]:text-sm [&_figcaption]:opacity-80",
  "[&_img.ProseMirror-selectednode]:outline [&_img.ProseMirror-selectednode]:outline-3 [&_img.ProseMirror-selectednode]:outline-brand-strong",
  "[&_pre]:my-4 [&_pre]:overflow-x-auto [&_pre]:rounded-brand [&_pre]:bg-black/5 [&_pre]:p-3 [&_code]:font-mono [&_code]:text-sm",
  "[&_hr]:my-6 [&_hr]:border-black/20",
].join(" ");

/** The editable area's attributes, and images pasted or dropped into it handed to `insertImage`. */
function editorPropsFor(
  attributes: Record<string, string>,
  insertImage: { current: (file: File) => void },
) {
  return {
    attributes,
    handlePaste: (_view: unknown, event: ClipboardEvent) =>
      takeImage(event.clipboardData?.files, insertImage.current),
    handleDrop: (_view: unknown, event: DragEvent) =>
      takeImage(event.dataTransfer?.files, insertImage.current),
  };
}

/** Hands the first image among pasted or dropped files to `insert`; true when it took one. */
function takeImage(files: FileList | undefined, insert: (file: File) => void): boolean {
  const image = [...(files ?? [])].find((file) => file.type.startsWith("image/"));
  if (!image) return false;
  insert(image);
  return true;
}
