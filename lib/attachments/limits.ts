/**
 * The sentences that refuse an attachment past a limit, shared by the upload route
 * (which refuses while the body arrives) and the store (which checks again). Each names
 * the limit and the setting that changes it.
 */

const MIB = 1024 * 1024;

/** A size as a person reads it: whole MiB or KiB when it is one (`10 MiB`), else one decimal. */
export function describeSize(bytes: number): string {
  if (bytes >= MIB && bytes % MIB === 0) return `${bytes / MIB} MiB`;
  if (bytes >= MIB) return `${(bytes / MIB).toFixed(1)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${bytes} B`;
}

export function fileTooLarge(name: string, maxBytes: number, size?: number): string {
  const what = size === undefined ? "is larger than" : `is ${describeSize(size)}, more than`;
  return `"${name}" ${what} ${describeSize(maxBytes)}, the most one attachment may be (ATTACHMENT_MAX_BYTES). Nothing was kept.`;
}

export function emptyFile(name: string): string {
  return `"${name}" is empty; there is nothing to attach.`;
}

export function chatFull(name: string, size: number, held: number, maxChatBytes: number): string {
  return `"${name}" (${describeSize(size)}) does not fit: this chat holds ${describeSize(held)} of attachments, and a chat may hold at most ${describeSize(maxChatBytes)} (ATTACHMENTS_MAX_CHAT_BYTES). Delete some attachments first. Nothing was kept.`;
}
