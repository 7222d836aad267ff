/** A refused command's message, announced at once; `className` places it in its strip. */
export function ActionError({ error, className = "" }: { error: string | null; className?: string }) {
  return error ? (
    <p role="alert" className={`${className} text-red-700 dark:text-red-400`.trim()}>
      {error}
    </p>
  ) : null;
}
