import { AlertIcon, XIcon } from "./icons";

/** A command that failed: what went wrong, in words, with an optional dismiss. */
export function ErrorBanner({ message, onDismiss }: { message: string; onDismiss?: () => void }) {
  return (
    <div
      role="alert"
      data-testid="command-error"
      className="flex items-start gap-2 rounded-lg border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-900/70 dark:bg-red-950/40 dark:text-red-300"
    >
      <AlertIcon className="mt-0.5 shrink-0" />
      <span className="min-w-0 flex-1 break-words">{message}</span>
      {onDismiss ? (
        <button type="button" onClick={onDismiss} aria-label="Dismiss" className="rounded p-0.5 hover:bg-red-100 dark:hover:bg-red-900/50">
          <XIcon size={14} />
        </button>
      ) : null}
    </div>
  );
}
