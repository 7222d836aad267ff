import type { AttachmentRef } from "@/lib/contracts";

/** A stored prompt attachment as the contract's plain `AttachmentRef` (no extra fields a lean row may carry). */
export function attachmentRefOf(row: AttachmentRef): AttachmentRef {
  return { attachmentId: row.attachmentId, name: row.name, size: row.size, type: row.type, kind: row.kind };
}
