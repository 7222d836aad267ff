import { memo, useEffect, useRef, useState, type KeyboardEvent } from "react";
import { usePersonName } from "@/components/members/people-context";
import { MAX_PROMPT_CHARS } from "@/lib/contracts";
import { CopyButton } from "@/components/ui/copy-button";
import { PencilIcon } from "@/components/ui/icons";
import { BranchNavigator, useBranchActions } from "./branch-actions";

/**
 * The person's prompt: plain text (never markdown), so what they typed is what they see.
 * With `turnId` (a started turn of one's own chat): the pencil edits it in place, which
 * starts a new version of the turn beside this one, and the navigator goes between versions.
 */
export const UserMessage = memo(function UserMessage({ text, turnId, sentBy }: { text: string; turnId?: string; sentBy?: string }) {
  const actions = useBranchActions();
  const editing = turnId !== undefined && actions?.editing === turnId;
  // In a chat with members, who asked; in one's own chat, nothing (every prompt is one's own).
  const sender = usePersonName(sentBy);
  return (
    <div data-testid="message-user" className="group flex flex-col items-end gap-1">
      {sender ? (
        <span data-testid="prompt-sender" className="text-xs text-zinc-500 dark:text-zinc-400">
          {sender}
        </span>
      ) : null}
      {editing ? (
        <PromptEditor text={text} turnId={turnId} />
      ) : (
        <div className="flex max-w-full items-end justify-end gap-1">
          <div className="flex opacity-100 transition-opacity sm:opacity-0 sm:group-focus-within:opacity-100 sm:group-hover:opacity-100">
            <CopyButton text={text} label="Copy prompt" />
            {turnId !== undefined && actions ? (
              <button
                type="button"
                data-testid="edit-prompt"
                aria-label="Edit prompt"
                title="Edit prompt (↑ in an empty box edits the last one)"
                onClick={() => actions.setEditing(turnId)}
                className="rounded-md p-1.5 text-zinc-500 hover:bg-zinc-100 hover:text-zinc-800 dark:text-zinc-400 dark:hover:bg-zinc-800 dark:hover:text-zinc-100"
              >
                <PencilIcon size={14} />
              </button>
            ) : null}
          </div>
          <div className="max-w-[85%] rounded-2xl rounded-br-md bg-zinc-100 px-4 py-2.5 text-[15px] leading-relaxed break-words whitespace-pre-wrap text-zinc-900 dark:bg-zinc-800 dark:text-zinc-100">
            {text}
          </div>
        </div>
      )}
      {turnId !== undefined ? <BranchNavigator turnId={turnId} /> : null}
    </div>
  );
});

/** The prompt, editable in place: Enter (or Send) starts the new version, Escape (or Cancel) leaves it as it was. */
function PromptEditor({ text, turnId }: { text: string; turnId: string }) {
  const actions = useBranchActions()!;
  const [draft, setDraft] = useState(text);
  const [busy, setBusy] = useState(false);
  const area = useRef<HTMLTextAreaElement>(null);
  useEffect(() => {
    const el = area.current;
    if (!el) return;
    el.focus();
    el.setSelectionRange(el.value.length, el.value.length);
  }, []);
  const submit = async () => {
    if (busy || !draft.trim()) return;
    setBusy(true);
    const ok = await actions.edit(turnId, draft.trim());
    setBusy(false);
    if (ok) actions.setEditing(null);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === "Escape") {
      e.preventDefault();
      actions.setEditing(null);
    } else if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void submit();
    }
  };
  return (
    <div className="w-full max-w-[85%] space-y-2 rounded-2xl border border-sky-500 bg-white p-2 ring-2 ring-sky-500/20 dark:bg-zinc-900">
      <label htmlFor={`edit-${turnId}`} className="sr-only">
        Edit prompt
      </label>
      <textarea
        id={`edit-${turnId}`}
        ref={area}
        data-testid="edit-prompt-text"
        value={draft}
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={onKeyDown}
        maxLength={MAX_PROMPT_CHARS}
        disabled={busy}
        rows={2}
        className="max-h-64 min-h-[2.5rem] w-full resize-none bg-transparent px-2 py-1 text-[15px] leading-6 [field-sizing:content] focus:outline-none"
      />
      <div className="flex items-center justify-end gap-2">
        <span className="mr-auto hidden px-2 text-[11px] text-zinc-500 sm:inline dark:text-zinc-400">
          A new version of this turn; the old one is kept (‹ ›)
        </span>
        <button
          type="button"
          onClick={() => actions.setEditing(null)}
          className="rounded-md px-3 py-1.5 text-sm text-zinc-700 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
        >
          Cancel
        </button>
        <button
          type="button"
          data-testid="edit-prompt-send"
          disabled={busy || !draft.trim()}
          onClick={() => void submit()}
          className="rounded-md bg-sky-600 px-3 py-1.5 text-sm font-medium text-white hover:bg-sky-700 disabled:opacity-60"
        >
          {busy ? "Sending…" : "Send"}
        </button>
      </div>
    </div>
  );
}
