import { ATTACHMENT_ROUTES, type AttachmentRef } from "@/lib/contracts";

export type UploadAnswer = { ok: true; ref: AttachmentRef } | { ok: false; message: string };

/** Uploads one file to the chat, as the route takes it: the raw bytes, the name in the query. */
export async function uploadAttachment(sessionId: string, file: File, signal?: AbortSignal): Promise<UploadAnswer> {
  try {
    const res = await fetch(ATTACHMENT_ROUTES.upload(sessionId, file.name), {
      method: "POST",
      body: file,
      headers: { "content-type": file.type || "application/octet-stream" },
      signal,
    });
    const body = (await res.json().catch(() => null)) as { attachment?: AttachmentRef; error?: { message?: string } } | null;
    if (res.ok && body?.attachment) return { ok: true, ref: body.attachment };
    return { ok: false, message: body?.error?.message ?? `The upload failed (HTTP ${res.status}).` };
  } catch (error) {
    if (signal?.aborted) return { ok: false, message: "Upload stopped." };
    return { ok: false, message: `The upload failed: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** Removes an attachment the person took back before sending; a failure leaves it in the chat, which is harmless. */
export async function deleteAttachment(sessionId: string, attachmentId: string): Promise<void> {
  await fetch(ATTACHMENT_ROUTES.one(sessionId, attachmentId), { method: "DELETE" }).catch(() => undefined);
}
