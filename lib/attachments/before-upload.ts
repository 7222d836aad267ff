import { emptyFile, fileTooLarge } from "./limits";
import { safeAttachmentName } from "./name";

/**
 * What the composer says of a file before uploading it: the server's own sentence for a
 * file over the size limit or an empty one (the same words its 413 and 400 carry), null
 * when the file may go. Its kind is the server's to judge: only the content decides it.
 */
export function refuseBeforeUpload(file: { name: string; size: number }, maxBytes: number | undefined): string | null {
  const name = safeAttachmentName(file.name);
  if (file.size === 0) return emptyFile(name);
  // Without the size, as the upload route words it (it refuses before it knows the size); the chip shows the size beside.
  if (maxBytes !== undefined && file.size > maxBytes) return fileTooLarge(name, maxBytes);
  return null;
}
