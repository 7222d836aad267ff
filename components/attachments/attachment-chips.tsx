"use client";

import { memo } from "react";
import { ATTACHMENT_ROUTES, type AttachmentRef } from "@/lib/contracts";
import { describeSize } from "@/lib/attachments/limits";
import { DownloadIcon, PaperclipIcon } from "@/components/ui/icons";
import { useAttachmentLinks } from "./attachment-links";

const KIND_LABEL: Record<AttachmentRef["kind"], string> = { text: "Text", pdf: "PDF", image: "Image" };

/**
 * The files a prompt named, under it. For the chat's owner each opens the file (an image
 * inline, with a small thumbnail; others download); a shared view shows the names only.
 */
export const AttachmentChips = memo(function AttachmentChips({
  sessionId,
  attachments,
}: {
  sessionId: string;
  attachments: readonly AttachmentRef[] | undefined;
}) {
  const linked = useAttachmentLinks();
  if (!attachments?.length) return null;
  return (
    <ul aria-label="Attachments" data-testid="prompt-attachments" className="-mt-2 flex flex-wrap justify-end gap-1.5 pl-[15%]">
      {attachments.map((a) => {
        const url = ATTACHMENT_ROUTES.one(sessionId, a.attachmentId);
        const body = (
          <>
            {linked && a.kind === "image" ? (
              // eslint-disable-next-line @next/next/no-img-element -- the owner's own upload, served by this app; next/image would proxy it
              <img src={url} alt="" className="size-8 shrink-0 rounded object-cover" loading="lazy" />
            ) : (
              <span className="shrink-0 text-zinc-400 dark:text-zinc-500">
                <PaperclipIcon size={13} />
              </span>
            )}
            <span className="min-w-0">
              <span className="block max-w-[14rem] truncate font-medium text-zinc-800 dark:text-zinc-100">{a.name}</span>
              <span className="block text-[11px] text-zinc-500 dark:text-zinc-400">
                {KIND_LABEL[a.kind]} · {describeSize(a.size)}
              </span>
            </span>
            {linked && a.kind !== "image" ? <DownloadIcon size={13} className="shrink-0 text-zinc-400 dark:text-zinc-500" /> : null}
          </>
        );
        const chip =
          "flex items-center gap-2 rounded-lg border border-zinc-200 bg-white px-2 py-1 text-xs dark:border-zinc-700 dark:bg-zinc-900";
        return (
          <li key={a.attachmentId} data-testid="prompt-attachment">
            {linked ? (
              <a
                href={url}
                target={a.kind === "image" ? "_blank" : undefined}
                rel="noopener"
                download={a.kind === "image" ? undefined : a.name}
                title={a.kind === "image" ? `Open ${a.name}` : `Download ${a.name}`}
                className={`${chip} hover:border-zinc-300 hover:bg-zinc-50 focus-visible:outline-2 focus-visible:outline-sky-500 dark:hover:border-zinc-600 dark:hover:bg-zinc-800`}
              >
                {body}
              </a>
            ) : (
              <span className={chip}>{body}</span>
            )}
          </li>
        );
      })}
    </ul>
  );
});
