/**
 * A message shown as written, when it is not to be formatted: the text in a wrapping
 * <pre> (React escapes it, so it stays inert) under a short, quiet note saying why.
 */
export function PlainText({ text, note }: { text: string; note: string }) {
  return (
    <>
      <div data-testid="markdown-plain-note" className="mb-1.5 text-xs text-zinc-500 dark:text-zinc-400">
        {note}
      </div>
      <pre data-testid="markdown-plain" className="whitespace-pre-wrap">
        {text}
      </pre>
    </>
  );
}
