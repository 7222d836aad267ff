"use client";

import { useEffect, useImperativeHandle, useRef, useState, type FormEvent, type KeyboardEvent, type ReactNode, type Ref } from "react";
import { MAX_PROMPT_CHARS } from "@/lib/contracts";
import { SendIcon, StopIcon } from "@/components/ui/icons";
import { AttachButton } from "@/components/attachments/attach-button";
import { AttachmentTray } from "@/components/attachments/attachment-tray";
import type { AttachmentDrafts } from "@/components/attachments/use-attachment-drafts";
import { useFileDrop } from "@/components/attachments/use-file-drop";

export interface ComposerProps {
  /** Resolves true when the server accepted the prompt; false puts the text back in the box. */
  onSend: (text: string) => Promise<boolean>;
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
}: ComposerProps) {
  const [draft, setDraft] = useState("");
  const [sending, setSending] = useState(false);
  const area = useRef<HTMLTextAreaElement>(null);
  const { dragging, dropHandlers, onPaste } = useFileDrop(attachments && !disabled ? attachments.add : undefined);

  useImperativeHandle(ref, () => ({
    setDraft: (text: string) => {
      setDraft(text);
      area.current?.focus();
    },
    focus: () => area.current?.focus(),
  }));

  const canSend = !sending && !running && !disabled && draft.trim().length > 0 && !attachments?.busy;
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
    if (!canSend) return;
    const text = draft.trim();
    // Cleared at once (the prompt already shows as a bubble); restored if it was refused.
    setDraft("");
    setSending(true);
    const accepted = await onSend(text);
    setSending(false);
    if (!accepted) setDraft((current) => current || text);
    if (accepted) attachments?.clear();
    // Focus returns after the textarea is re-enabled, so typing can continue at once.
    requestAnimationFrame(() => area.current?.focus());
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
