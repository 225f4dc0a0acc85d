/** Uploading an image from the admin's browser (the editor's images and the cover). */

export const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"];
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

export type UploadResult =
  | { ok: true; url: string; width: number | null; height: number | null }
  | { ok: false; error: string };

/** Checked here before it is sent; the server checks again (it trusts nothing from the browser). */
export function refuseImage(file: File): string | null {
  if (!IMAGE_TYPES.includes(file.type))
    return "Only PNG, JPEG, GIF and WebP images can be uploaded.";
  if (file.size > MAX_IMAGE_BYTES) return "Images must be 5 MB or smaller.";
  return null;
}

/** POSTs the file to the upload route; the answer's url, width and height, or a message to show. */
export async function uploadImageFile(uploadUrl: string, file: File): Promise<UploadResult> {
  try {
    const body = new FormData();
    body.set("file", file);
    const response = await fetch(uploadUrl, {
      method: "POST",
      body,
      headers: { Accept: "application/json" },
      redirect: "manual",
    });
    const answer: unknown = await response.json().catch(() => null);
    const url = readField(answer, "url");
    if (!response.ok || !url) {
      return { ok: false, error: readField(answer, "error") ?? uploadFailure(response.status) };
    }
    return {
      ok: true,
      url,
      width: readNumber(answer, "width"),
      height: readNumber(answer, "height"),
    };
  } catch {
    return {
      ok: false,
      error: "The image could not be uploaded. Check your connection and try again.",
    };
  }
}

function readField(value: unknown, field: "url" | "error"): string | null {
  if (typeof value !== "object" || value === null || !(field in value)) return null;
  const found = (value as Record<string, unknown>)[field];
  return typeof found === "string" && found ? found : null;
}

function readNumber(value: unknown, field: "width" | "height"): number | null {
  if (typeof value !== "object" || value === null || !(field in value)) return null;
  const found = (value as Record<string, unknown>)[field];
  return typeof found === "number" && Number.isInteger(found) && found > 0 ? found : null;
}

function uploadFailure(status: number): string {
  if (status === 413) return "Images must be 5 MB or smaller.";
  if (status === 0 || status === 401 || status === 403) {
    return "The image could not be uploaded: your session may have ended. Sign in again.";
  }
  return "The image could not be uploaded. Please try again.";
}
