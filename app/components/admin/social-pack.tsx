import { useState } from "react";
import { charCount } from "../../../shared/schemas/social";
import { FieldShell, TextArea } from "../ui/form";

/** A post's textarea with its count of characters against the network's limit. */
export function PostField({
  id,
  name,
  label,
  hint,
  max,
  rows,
  defaultValue,
  invalid,
}: {
  id: string;
  name: string;
  label: string;
  hint: string;
  max: number;
  rows: number;
  defaultValue: string;
  invalid: boolean;
}) {
  const [count, setCount] = useState(charCount(defaultValue));
  return (
    <FieldShell id={id} label={label} hint={hint}>
      <TextArea
        id={id}
        name={name}
        rows={rows}
        defaultValue={defaultValue}
        aria-describedby={`${id}-hint ${id}-count`}
        aria-invalid={invalid || count > max ? true : undefined}
        onChange={(event) => setCount(charCount(event.currentTarget.value))}
      />
      <p
        id={`${id}-count`}
        className={`mt-1 text-sm ${count > max ? "font-semibold text-danger" : "opacity-80"}`}
      >
        {`${count.toLocaleString("en-US")} of ${max.toLocaleString("en-US")} characters`}
      </p>
    </FieldShell>
  );
}

export interface PackImageItem {
  name: string;
  width: number;
  height: number;
  alt: string;
  url: string | null;
}

const PURPOSE: Record<string, string> = {
  "link.png": "LinkedIn link share",
  "square.png": "Feed post",
};

/** The pack's images, each at its real proportions, with its file name, size and use. */
export function PackImages({ images }: { images: readonly PackImageItem[] }) {
  return (
    <ul className="mt-3 grid gap-6 sm:grid-cols-2">
      {images.map((image) => (
        <li key={image.name} className="space-y-2">
          {image.url ? (
            <a href={image.url} download={image.name} className="block">
              <img
                src={image.url}
                alt={image.alt}
                width={image.width}
                height={image.height}
                loading="lazy"
                className="h-auto w-full rounded-brand border border-black/20"
              />
            </a>
          ) : (
            <p className="rounded-brand border-2 border-dashed border-black/30 p-4 text-sm">
              This quote is too long to fit a card at a readable size: shorten it in the newsletter
              to get its card.
            </p>
          )}
          <p className="text-sm">
            <span className="font-semibold">{image.name}</span>
            {` · ${image.width} × ${image.height} · ${PURPOSE[image.name] ?? "Quote card"}`}
          </p>
        </li>
      ))}
    </ul>
  );
}
