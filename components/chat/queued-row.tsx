/** The prompt waiting in this tab for the running turn to end, with a way to take it back. */
export function QueuedRow({ text, onCancel }: { text: string; onCancel: () => void }) {
  const firstLine = text.split("\n", 1)[0] ?? "";
  return (
    <div className="mx-auto w-full max-w-3xl px-3 pb-1 sm:px-4">
      <div
        data-testid="queued"
        role="status"
        className="flex items-center gap-2 rounded-lg border border-zinc-200 bg-zinc-50 px-3 py-1.5 text-sm text-zinc-700 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-300"
      >
        <span className="min-w-0 flex-1 truncate" title={text}>
          Queued: {firstLine}
        </span>
        <button
          type="button"
          onClick={onCancel}
          className="shrink-0 rounded-md px-2 py-0.5 text-zinc-600 hover:bg-zinc-200 focus-visible:ring-2 focus-visible:ring-sky-500/40 focus-visible:outline-none dark:text-zinc-400 dark:hover:bg-zinc-800"
        >
          Cancel
        </button>
      </div>
    </div>
  );
}
