import type { AttachmentRef } from "@/lib/contracts";

/** A real 1×1 PNG (one opaque pixel), as a browser would upload it. */
export const TINY_PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  "base64",
);

/** Uploads a file as the composer does: the raw bytes, the name in the query. */
export async function uploadAttachment(
  baseUrl: string,
  cookie: string,
  sessionId: string,
  name: string,
  bytes: Uint8Array | string,
  type = "application/octet-stream",
): Promise<{ status: number; body: UploadAnswer }> {
  const res = await fetch(`${baseUrl}/api/sessions/${sessionId}/attachments?name=${encodeURIComponent(name)}`, {
    method: "POST",
    headers: { cookie, "content-type": type },
    body: typeof bytes === "string" ? bytes : new Uint8Array(bytes),
  });
  return { status: res.status, body: (await res.json()) as UploadAnswer };
}

export interface UploadAnswer {
  attachment?: AttachmentRef;
  error?: { code: string; message: string };
}
