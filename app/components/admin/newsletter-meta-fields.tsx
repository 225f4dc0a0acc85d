import type { FieldMetadata } from "@conform-to/react";
import { type KeyboardEvent, useId, useRef, useState } from "react";
import { refuseImage, uploadImageFile } from "../../lib/image-upload";
import { ImageFileInput } from "../image-file-input";
import { FieldErrors, TextInput } from "../ui/form";

/** The newsletter form's tags and cover image (issue 15, parts 2 and 4). */

const splitTags = (text: string) =>
  text
    .split(",")
    .map((name) => name.replace(/\s+/g, " ").trim())
    .filter(Boolean);

const sameTag = (a: string, b: string) => a.toLocaleLowerCase() === b.toLocaleLowerCase();

/**
 * Tags as chips: type a name and press Enter (or a comma) to add it; the browser suggests the
 * site's existing tags as you type. The form sends them as one comma-separated field.
 */
export function TagsField({
  field,
  suggestions,
  onChange,
}: {
  field: FieldMetadata<string>;
  suggestions: string[];
  onChange(): void;
}) {
  const [tags, setTags] = useState(() => splitTags(String(field.initialValue ?? "")));
  const [draft, setDraft] = useState("");
  const hiddenRef = useRef<HTMLInputElement>(null);
  const listId = useId();
  const inputId = `${field.id}-input`;

  function update(next: string[]) {
    setTags(next);
    // The hidden input changes without an input event: say so, for autosave.
    if (hiddenRef.current) hiddenRef.current.value = next.join(", ");
    onChange();
  }

  function add(text: string) {
    const names = splitTags(text).filter(
      (name, index, all) =>
        !tags.some((tag) => sameTag(tag, name)) &&
        all.findIndex((other) => sameTag(other, name)) === index,
    );
    if (names.length > 0) update([...tags, ...names]);
    setDraft("");
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === "Enter" || event.key === ",") {
      // Enter would submit the form: here it adds the tag.
      event.preventDefault();
      add(draft);
    } else if (event.key === "Backspace" && draft === "" && tags.length > 0) {
      update(tags.slice(0, -1));
    }
  }

  return (
    <div>
      <label htmlFor={inputId} className="block font-semibold">
        Tags <span className="ml-1 font-normal opacity-80">(optional)</span>
      </label>
      <p id={`${field.id}-hint`} className="mt-1 text-sm opacity-80">
        Type a tag and press Enter. Each tag gets a page listing its issues.
      </p>
      <input
        ref={hiddenRef}
        type="hidden"
        name={field.name}
        id={field.id}
        defaultValue={tags.join(", ")}
      />
      <div
        className={`mt-1 flex flex-wrap items-center gap-2 rounded-brand border bg-surface px-2 py-1.5 shadow-sm focus-within:border-brand-strong ${
          field.valid ? "border-black/30" : "border-danger ring-1 ring-danger"
        }`}
      >
        {tags.length > 0 ? (
          <ul aria-label="Tags of this newsletter" className="contents">
            {tags.map((tag) => (
              <li
                key={tag}
                className="inline-flex items-center gap-1 rounded-full bg-brand/10 py-0.5 pr-1 pl-3 text-sm font-medium"
              >
                {tag}
                <button
                  type="button"
                  onClick={() => update(tags.filter((each) => each !== tag))}
                  aria-label={`Remove tag ${tag}`}
                  className="rounded-full px-1.5 leading-none hover:bg-black/10"
                >
                  ×
                </button>
              </li>
            ))}
          </ul>
        ) : null}
        <input
          id={inputId}
          list={listId}
          value={draft}
          onChange={(event) => {
            const value = event.currentTarget.value;
            // A pasted "a, b, c" or a suggestion picked from the list ending in a comma.
            if (value.includes(",")) add(value);
            else setDraft(value);
          }}
          onKeyDown={onKeyDown}
          onBlur={() => add(draft)}
          aria-describedby={`${field.id}-hint ${field.id}-error`}
          aria-invalid={field.valid ? undefined : true}
          autoComplete="off"
          maxLength={40}
          placeholder={tags.length === 0 ? "e.g. eDiscovery" : "Add a tag"}
          className="min-w-32 flex-1 border-0 bg-transparent px-1 py-1 text-base text-ink outline-none"
        />
        <datalist id={listId}>
          {suggestions
            .filter((name) => !tags.some((tag) => sameTag(tag, name)))
            .map((name) => (
              <option key={name} value={name} />
            ))}
        </datalist>
      </div>
      <FieldErrors id={`${field.id}-error`} errors={field.errors} />
    </div>
  );
}

/**
 * An optional cover image: uploaded (and processed) at once, kept as its /uploads/… URL in a hidden
 * field; its description is asked for beside it. It is shown above the article, in the archive and
 * on the share card.
 */
export function CoverField({
  image,
  alt,
  uploadUrl,
  onChange,
}: {
  image: FieldMetadata<string>;
  alt: FieldMetadata<string>;
  uploadUrl: string;
  onChange(): void;
}) {
  const [url, setUrl] = useState(String(image.initialValue ?? ""));
  const [notice, setNotice] = useState("");
  const [busy, setBusy] = useState(false);
  const fileRef = useRef<HTMLInputElement>(null);
  const hiddenRef = useRef<HTMLInputElement>(null);

  function change(next: string) {
    setUrl(next);
    if (hiddenRef.current) hiddenRef.current.value = next;
    onChange();
  }

  async function upload(file: File) {
    const refused = refuseImage(file);
    if (refused) {
      setNotice(refused);
      return;
    }
    setBusy(true);
    setNotice("Uploading the cover image…");
    const uploaded = await uploadImageFile(uploadUrl, file);
    setBusy(false);
    if (!uploaded.ok) {
      setNotice(uploaded.error);
      return;
    }
    change(uploaded.url);
    setNotice("Cover image added. Describe it below for readers who cannot see it.");
  }

  return (
    <fieldset className="space-y-3">
      <legend className="font-semibold">
        Cover image <span className="ml-1 font-normal opacity-80">(optional)</span>
      </legend>
      <p className="text-sm opacity-80">
        Shown above the article and in the archive, and as the picture of links shared on LinkedIn
        and elsewhere (cropped to 1200×630). PNG, JPEG, GIF or WebP, up to 5 MB.
      </p>
      <input ref={hiddenRef} type="hidden" name={image.name} defaultValue={url} />
      {url ? (
        <img
          src={url}
          alt=""
          className="aspect-[1200/630] w-full max-w-md rounded-brand object-cover ring-1 ring-black/10"
        />
      ) : null}
      <div className="flex flex-wrap gap-2">
        <ImageFileInput ref={fileRef} onFile={(file) => void upload(file)} />
        <button
          type="button"
          disabled={busy}
          onClick={() => fileRef.current?.click()}
          className="rounded-brand border-2 border-black/30 px-3 py-1.5 text-sm font-semibold hover:bg-black/5 disabled:opacity-60"
        >
          {url ? "Replace cover image" : "Upload cover image"}
        </button>
        {url ? (
          <button
            type="button"
            disabled={busy}
            onClick={() => {
              change("");
              setNotice("Cover image removed.");
            }}
            className="rounded-brand border-2 border-danger/60 px-3 py-1.5 text-sm font-semibold text-danger hover:bg-danger/5"
          >
            Remove cover image
          </button>
        ) : null}
      </div>
      <p role="status" aria-live="polite" className="text-sm font-medium empty:hidden">
        {notice}
      </p>
      <FieldErrors id={`${image.id}-error`} errors={image.errors} />
      <div className={url ? "" : "hidden"}>
        <label htmlFor={alt.id} className="block text-sm font-semibold">
          Describe the cover image
        </label>
        <TextInput
          id={alt.id}
          name={alt.name}
          defaultValue={String(alt.initialValue ?? "")}
          maxLength={300}
          aria-describedby={`${alt.id}-error`}
          aria-invalid={alt.valid ? undefined : true}
          className="mt-1"
        />
        <FieldErrors id={`${alt.id}-error`} errors={alt.errors} />
      </div>
    </fieldset>
  );
}
