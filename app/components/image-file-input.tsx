import type { Ref } from "react";
import { IMAGE_TYPES } from "../lib/image-upload";

/**
 * The hidden file input behind an "add an image" button (the button calls `ref.current.click()`):
 * it takes the image types the upload takes, hands the chosen file to `onFile`, and empties itself
 * so the same file can be chosen again. Its change stays out of the form's own change handler
 * (autosave): the caller says when the image changed the form.
 */
export function ImageFileInput({
  ref,
  onFile,
}: {
  ref: Ref<HTMLInputElement>;
  onFile: (file: File) => void;
}) {
  return (
    <input
      ref={ref}
      type="file"
      accept={IMAGE_TYPES.join(",")}
      className="hidden"
      tabIndex={-1}
      aria-hidden="true"
      onChange={(event) => {
        const file = event.currentTarget.files?.[0];
        event.currentTarget.value = "";
        event.stopPropagation();
        if (file) onFile(file);
      }}
    />
  );
}
