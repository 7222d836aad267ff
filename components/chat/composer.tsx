"use client";

import {
  useEffect,
  useImperativeHandle,
  useLayoutEffect,
  useRef,
  useState,
  type FormEvent,
  type KeyboardEvent,
  type ReactNode,
  type Ref,
} from "react";
import { MAX_PROMPT_CHARS } from "@/lib/contracts";
import { SendIcon, StopIcon } from "@/components/ui/icons";
import { AttachButton } from "@/components/attachments/attach-button";
import { AttachmentTray } from "@/components/attachments/attachment-tray";
import type { AttachmentDrafts } from "@/components/attachments/use-attachment-drafts";
import { useFileDrop } from "@/components/attachments/use-file-drop";

export interface ComposerProps {
  /** Resolves true when the server accepted the prompt; false puts the text back in the box; "busy": a turn runs (offered to queue). */
  onSend: (text: string) => Promise<boolean | "busy">;
  onStop?: () => void;
  /** A turn is running: Enter does not send, and Stop replaces Send. */
  running: boolean;
  disabled?: boolean;
  placeholder?: string;
  /** Controls under the box, before the keyboard hint (the model picker). */
  tools?: ReactNode;
  /** ↑ in an empty box: edit the last prompt. */
  onEditLast?: () => void;
  ref?: Ref<ComposerHandle>;
  /** The files going with the next prompt (dropped, pasted or picked); absent: none can be attached. */
  attachments?: AttachmentDrafts;
  /** The person typed in the box (a chat with members tells the others, throttled by the caller). */
  onTyping?: () => void;
  /** Present: a prompt sent while a turn runs is offered to be queued and sent when it ends. */
  onQueue?: (text: string) => void;
  /** A prompt is queued already: queueing another replaces it. */
  queued?: boolean;
}

export interface ComposerHandle {
  setDraft: (text: string) => void;
  focus: () => void;
}

/** Prompt box: Enter sends, Shift+Enter adds a line, locked while the send is in flight. */
export function Composer({
  onSend,
  onStop,
  running,
  disabled = false,
  placeholder = "Ask anything…",
  tools,
  onEditLast,
  ref,
  attachments,
  onTyping,
  onQueue,
  queued = false,
}: ComposerProps) {
  const [draft, setDraft] = useState("");
  const [sending, setSending] = useState(false);
  const [offer, setOffer] = useState(false);
  const area = useRef<HTMLTextAreaElement>(null);
  const { dragging, dropHandlers, onPaste } = useFileDrop(attachments && !disabled ? attachments.add : undefined);

  // The box is in the server's HTML, so a person can type before the page's script is ready;
  // that text is in the element, not yet in the state. Keep it rather than wipe it.
  useLayoutEffect(() => {
    const typed = area.current?.value;
    if (typed) setDraft((current) => current || typed);
  }, []);

  useImperativeHandle(ref, () => ({
    setDraft: (text: string) => {
      setDraft(text);
      area.current?.focus();
    },
    focus: () => area.current?.focus(),
  }));

  const canSend = !sending && !running && !disabled && draft.trim().length > 0 && !attachments?.busy;
  // While a turn runs, a send is not blocked without a word: it asks whether to queue the prompt.
  const canOffer = !!onQueue && running && !sending && !disabled && draft.trim().length > 0;
  // Files go with a prompt that says what to do with them; an empty box asks for those words.
  const filesWaiting = (attachments?.items.length ?? 0) > 0 && draft.trim().length === 0;

  // The box takes the focus when it becomes usable (on load, and on a new chat's page after
  // the first send from home) unless the person is already somewhere else. Not on touch
  // screens, where focus would pop the keyboard over the chat.
  useEffect(() => {
    if (disabled || !area.current) return;
    const idle = document.activeElement === null || document.activeElement === document.body;
    if (idle && window.matchMedia("(pointer: fine)").matches) area.current.focus();
  }, [disabled]);

  const submit = async (e?: FormEvent) => {
    e?.preventDefault();
    if (canOffer) {
      setOffer(true);
      return;
    }
    if (!canSend) return;
    const text = draft.trim();
    // Cleared at once (the prompt already shows as a bubble); restored if it was refused.
    setDraft("");
    setSending(true);
    const outcome = await onSend(text);
    setSending(false);
    if (outcome !== true) setDraft((current) => current || text);
    if (outcome === true) attachments?.clear();
    // Another member's turn started before this prompt arrived.
    if (outcome === "busy" && onQueue) {
      setOffer(true);
      return;
    }
    // Focus returns after the textarea is re-enabled, so typing can continue at once.
    requestAnimationFrame(() => area.current?.focus());
  };

  const queueDraft = () => {
    const text = draft.trim();
    setOffer(false);
    if (!text || !onQueue) return;
    // The turn ended while the question was open: nothing to wait for, so it is sent now.
    if (!running) {
      void submit();
      return;
    }
    onQueue(text);
    setDraft("");
    area.current?.focus();
  };

  const closeOffer = () => {
    setOffer(false);
    area.current?.focus();
  };

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "ArrowUp" && draft === "" && onEditLast && !running) {
      e.preventDefault();
      onEditLast();
      return;
    }
    // isComposing: Enter that confirms an IME candidate must not send half a word.
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void submit();
    }
  };

  return (
    <form onSubmit={submit} className="mx-auto w-full max-w-3xl px-3 pb-[max(0.75rem,env(safe-area-inset-bottom))] sm:px-4 sm:pb-4">
      {attachments ? <AttachmentTray items={attachments.items} onRemove={attachments.remove} /> : null}
      {offer && draft.trim() ? <QueueOffer replaces={queued} onQueue={queueDraft} onCancel={closeOffer} /> : null}
      <div
        {...dropHandlers}
        data-dragging={dragging || undefined}
        className="flex items-end gap-2 rounded-xl border border-zinc-300 bg-white p-1.5 pl-3 shadow-sm focus-within:border-sky-500 focus-within:ring-2 focus-within:ring-sky-500/20 data-[dragging]:border-dashed data-[dragging]:border-sky-500 data-[dragging]:bg-sky-50 dark:border-zinc-700 dark:bg-zinc-900 dark:data-[dragging]:bg-sky-950/30"
      >
        {attachments ? (
          <div className="-ml-1.5">
            <AttachButton onFiles={attachments.add} disabled={disabled} />
          </div>
        ) : null}
        <label htmlFor="composer" className="sr-only">
          Message
        </label>
        <textarea
          id="composer"
          ref={area}
          data-testid="composer"
          value={draft}
          onChange={(e) => {
            setDraft(e.target.value);
            if (e.target.value.trim()) onTyping?.();
          }}
          onKeyDown={onKeyDown}
          onPaste={onPaste}
          disabled={sending || disabled}
          maxLength={MAX_PROMPT_CHARS}
          rows={1}
          placeholder={filesWaiting ? "Say what to do with the attached files…" : placeholder}
          className="max-h-48 min-h-[2.25rem] flex-1 resize-none bg-transparent py-1.5 text-[15px] leading-6 [field-sizing:content] placeholder:text-zinc-400 focus:outline-none disabled:opacity-60 dark:placeholder:text-zinc-500"
        />
        {canOffer ? (
          <button
            type="submit"
            data-testid="send"
            aria-label="Send"
            title="Send (Enter): offers to queue it until the running turn ends"
            className="flex size-9 shrink-0 items-center justify-center rounded-lg bg-sky-600 text-white hover:bg-sky-700"
          >
            <SendIcon />
          </button>
        ) : null}
        {running && onStop ? (
          <button
            type="button"
            data-testid="stop"
            onClick={onStop}
            aria-label="Stop"
            title="Stop"
            className="flex size-9 shrink-0 items-center justify-center rounded-lg bg-zinc-900 text-white hover:bg-zinc-700 dark:bg-zinc-100 dark:text-zinc-900 dark:hover:bg-zinc-300"
          >
            <StopIcon />
          </button>
        ) : (
          <button
            type="submit"
            data-testid="send"
            disabled={!canSend}
            aria-label={sending ? "Sending" : "Send"}
            title={filesWaiting ? "Write a few words about the files to send them" : "Send (Enter)"}
            className="flex size-9 shrink-0 items-center justify-center rounded-lg bg-sky-600 text-white hover:bg-sky-700 disabled:bg-zinc-200 disabled:text-zinc-400 dark:disabled:bg-zinc-800 dark:disabled:text-zinc-500"
          >
            <SendIcon />
          </button>
        )}
      </div>
      <div className="mt-1 flex min-h-5 items-center gap-3 px-1">
        {tools}
        <p className="hidden text-[11px] text-zinc-500 sm:block dark:text-zinc-400">
          Enter to send · Shift+Enter for a new line{running && onStop ? " · Esc to stop" : ""}
        </p>
      </div>
    </form>
  );
}

/** Asked in place when a prompt meets a running turn: queue it, or keep it in the box. */
function QueueOffer({ replaces, onQueue, onCancel }: { replaces: boolean; onQueue: () => void; onCancel: () => void }) {
  return (
    <div
      role="status"
      data-testid="queue-offer"
      // Escape here closes the question; it must not reach the page's "Escape stops the turn".
      onKeyDown={(e) => {
        if (e.key !== "Escape") return;
        e.preventDefault();
        onCancel();
      }}
      className="mb-2 flex flex-wrap items-center gap-x-3 gap-y-2 rounded-lg border border-sky-200 bg-sky-50 px-3 py-2 text-sm text-sky-900 dark:border-sky-900/70 dark:bg-sky-950/40 dark:text-sky-200"
    >
      <span className="min-w-0 flex-1 basis-56">
        A turn is running. Queue this message to send when it ends?{replaces ? " It replaces the message queued now." : ""}
      </span>
      <span className="flex gap-2">
        <button
          type="button"
          autoFocus
          onClick={onQueue}
          className="rounded-md bg-sky-600 px-3 py-1 font-medium text-white hover:bg-sky-700 focus-visible:ring-2 focus-visible:ring-sky-500/40 focus-visible:outline-none"
        >
          Queue
        </button>
        <button
          type="button"
          onClick={onCancel}
          className="rounded-md border border-sky-300 px-3 py-1 hover:bg-sky-100 focus-visible:ring-2 focus-visible:ring-sky-500/40 focus-visible:outline-none dark:border-sky-800 dark:hover:bg-sky-900/50"
        >
          Cancel
        </button>
      </span>
    </div>
  );
}
