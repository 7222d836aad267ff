"use client";

import { describeSize } from "@/lib/attachments/limits";
import { AlertIcon, SpinnerIcon, XIcon } from "@/components/ui/icons";
import type { AttachmentDraft } from "./use-attachment-drafts";

/** The composer's files, above the text box: name, size, an upload spinner, a remove button, and why one was refused. */
export function AttachmentTray({ items, onRemove }: { items: readonly AttachmentDraft[]; onRemove: (key: string) => void }) {
  if (items.length === 0) return null;
  return (
    <ul aria-label="Attached files" data-testid="attachment-tray" className="flex flex-wrap gap-1.5 px-1.5 pt-1.5 pb-1">
      {items.map((item) => (
        <li
          key={item.key}
          data-testid="attachment-draft"
          data-state={item.state}
          className={`flex max-w-full min-w-0 flex-col rounded-lg border px-2 py-1 text-xs ${
            item.state === "failed"
              ? "border-red-300 bg-red-50 text-red-900 dark:border-red-800/70 dark:bg-red-950/40 dark:text-red-200"
              : "border-zinc-200 bg-zinc-50 text-zinc-700 dark:border-zinc-700 dark:bg-zinc-800/60 dark:text-zinc-200"
          }`}
        >
          <div className="flex min-w-0 items-center gap-1.5">
            {item.state === "uploading" ? (
              <span role="status" aria-label={`Uploading ${item.name}`} className="shrink-0 text-zinc-500 dark:text-zinc-400">
                <SpinnerIcon size={12} />
              </span>
            ) : item.state === "failed" ? (
              <AlertIcon size={12} className="shrink-0" />
            ) : null}
            <span className="max-w-[16rem] truncate font-medium" title={item.name}>
              {item.name}
            </span>
            <span className="shrink-0 text-zinc-500 tabular-nums dark:text-zinc-400">{describeSize(item.size)}</span>
            <button
              type="button"
              onClick={() => onRemove(item.key)}
              aria-label={`Remove ${item.name}`}
              title="Remove"
              className="-mr-1 flex size-5 shrink-0 items-center justify-center rounded text-zinc-500 hover:bg-zinc-200 hover:text-zinc-900 focus-visible:outline-2 focus-visible:outline-sky-500 dark:text-zinc-400 dark:hover:bg-zinc-700 dark:hover:text-zinc-100"
            >
              <XIcon size={12} />
            </button>
          </div>
          {item.error ? (
            <p role="alert" className="mt-0.5 max-w-[32rem] text-[11px] leading-snug break-words">
              {item.error}
            </p>
          ) : null}
        </li>
      ))}
    </ul>
  );
}
