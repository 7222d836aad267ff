"use client";

import { DownloadIcon } from "@/components/ui/icons";
import { PopoverMenu } from "@/components/ui/popover-menu";

const FORMATS = [
  { query: "format=json", label: "Session file (.json)", hint: "Everything, to import again or archive" },
  { query: "format=markdown", label: "Markdown transcript", hint: "Readable, subagents folded" },
  { query: "format=markdown&markup=1", label: "Markdown with markup", hint: "Adds each turn's SubagentExecution markup" },
] as const;

/**
 * The open chat's downloads: plain links the browser saves (the server streams them), so
 * a large chat never passes through this page's memory.
 */
export function ExportMenu({ sessionId }: { sessionId: string }) {
  return (
    <PopoverMenu
      kind="menu"
      button={<DownloadIcon />}
      buttonLabel="Export this chat"
      title="Export this chat"
      buttonTestId="export-button"
      buttonClassName="rounded-md p-2 text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
      label="Export this chat"
      panelClassName="absolute right-0 z-30 mt-1 w-[min(18rem,calc(100vw-1rem))] max-sm:fixed max-sm:inset-x-2 max-sm:top-12 max-sm:w-auto rounded-lg border border-zinc-200 bg-white p-1 text-sm shadow-lg dark:border-zinc-700 dark:bg-zinc-900"
    >
      {(close) =>
        FORMATS.map((f) => (
          <a
            key={f.query}
            role="menuitem"
            tabIndex={-1}
            href={`/api/sessions/${encodeURIComponent(sessionId)}/export?${f.query}`}
            download
            onClick={close}
            data-testid={`export-${f.query.replace(/\W+/g, "-")}`}
            className="block rounded-md px-3 py-2 text-zinc-800 hover:bg-zinc-100 focus:bg-zinc-100 focus:outline-none dark:text-zinc-100 dark:hover:bg-zinc-800 dark:focus:bg-zinc-800"
          >
            <span className="block font-medium">{f.label}</span>
            <span className="block text-xs text-zinc-600 dark:text-zinc-400">{f.hint}</span>
          </a>
        ))
      }
    </PopoverMenu>
  );
}
