"use client";

import { useEffect, useId, useRef, useState, type FormEvent } from "react";
import { MAX_INSTRUCTIONS_CHARS } from "@/lib/contracts";
import { useChatSettings } from "@/components/catalog/use-chat-settings";
import { PopoverMenu } from "@/components/ui/popover-menu";

/**
 * "Instructions" in the chat header: a short text added to the master's system prompt for
 * this chat only (its next turns; the context inspector shows the request it changed).
 * The button says when the chat has some.
 */
export function InstructionsDialog({ sessionId }: { sessionId: string }) {
  const { settings, setInstructions } = useChatSettings(sessionId);
  const [open, setOpen] = useState(false);
  const [draft, setDraft] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const area = useRef<HTMLTextAreaElement>(null);
  const titleId = useId();
  const current = settings?.instructions ?? "";

  useEffect(() => {
    if (!open) return;
    setDraft(current);
    setError(null);
  }, [open, current]);

  const save = async (text: string, close: () => void) => {
    setBusy(true);
    setError(null);
    const ack = await setInstructions(text);
    setBusy(false);
    if (ack && !ack.ok) setError(ack.message);
    else close();
  };

  return (
    <PopoverMenu
      open={open}
      onOpenChange={setOpen}
      button={
        <span className="flex items-center gap-1">
          Instructions
          {current ? <span className="size-1.5 rounded-full bg-sky-500" aria-hidden="true" /> : null}
        </span>
      }
      buttonLabel={current ? "Instructions (set for this chat)" : "Instructions"}
      title={current ? "This chat's instructions (set)" : "Add instructions for this chat"}
      buttonTestId="instructions-button"
      buttonClassName="rounded-md px-2 py-1.5 text-xs font-medium text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
      labelledBy={titleId}
      panelTestId="instructions-dialog"
      panelClassName="absolute right-0 z-30 mt-1 w-[min(26rem,calc(100vw-1rem))] space-y-2 max-sm:fixed max-sm:inset-x-2 max-sm:top-12 max-sm:w-auto rounded-lg border border-zinc-200 bg-white p-3 text-sm shadow-lg dark:border-zinc-700 dark:bg-zinc-900"
      initialFocus={area}
    >
      {(close) => (
        <form
          onSubmit={(e: FormEvent) => {
            e.preventDefault();
            void save(draft, close);
          }}
          className="space-y-2"
        >
          <h2 id={titleId} className="font-semibold text-zinc-900 dark:text-zinc-100">
            Instructions for this chat
          </h2>
          <p className="text-xs text-zinc-600 dark:text-zinc-400">
            Added to the agent&apos;s system prompt for this chat&apos;s next turns, e.g. &ldquo;Answer in French&rdquo; or &ldquo;Cite line
            numbers&rdquo;.
          </p>
          <textarea
            ref={area}
            data-testid="instructions-text"
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            maxLength={MAX_INSTRUCTIONS_CHARS}
            rows={5}
            aria-labelledby={titleId}
            className="w-full resize-y rounded-md border border-zinc-300 bg-white px-2 py-1.5 text-sm dark:border-zinc-700 dark:bg-zinc-950"
          />
          <div className="flex items-center gap-2">
            <button
              type="submit"
              disabled={busy || draft.trim() === current}
              data-testid="instructions-save"
              className="rounded-md bg-zinc-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-zinc-700 disabled:opacity-60 dark:bg-zinc-100 dark:text-zinc-900 dark:hover:bg-zinc-300"
            >
              {busy ? "Saving…" : "Save"}
            </button>
            {current ? (
              <button
                type="button"
                disabled={busy}
                onClick={() => void save("", close)}
                data-testid="instructions-clear"
                className="rounded-md px-3 py-1.5 text-sm text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
              >
                Remove
              </button>
            ) : null}
            <span className="ml-auto text-xs text-zinc-500 tabular-nums dark:text-zinc-400">
              {draft.length.toLocaleString()} / {MAX_INSTRUCTIONS_CHARS.toLocaleString()}
            </span>
          </div>
          {error ? (
            <p role="alert" className="text-xs text-red-700 dark:text-red-400">
              {error}
            </p>
          ) : null}
        </form>
      )}
    </PopoverMenu>
  );
}
