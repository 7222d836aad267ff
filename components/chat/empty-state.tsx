import { ChatIcon } from "@/components/ui/icons";
import { DEMO_PROMPTS } from "@/lib/agent/demo/prompts";

/** Prompts the offline demo model answers with real tools and subagents (the one list the demo's help and README share). */
export const EXAMPLE_PROMPTS = DEMO_PROMPTS.map((p) => p.prompt);

export interface EmptyStateProps {
  onPick: (prompt: string) => void;
}

export function EmptyState({ onPick }: EmptyStateProps) {
  return (
    <div className="mx-auto flex h-full max-w-xl flex-col items-center justify-center px-4 py-10 text-center">
      <div className="mb-4 flex size-11 items-center justify-center rounded-xl border border-zinc-200 bg-zinc-50 text-zinc-500 dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-400">
        <ChatIcon size={20} />
      </div>
      <h2 className="text-lg font-semibold text-zinc-900 dark:text-zinc-100">What should we work on?</h2>
      <p className="mt-1.5 text-sm text-zinc-500 dark:text-zinc-400">
        The agent hands focused tasks to subagents. Open any subagent panel to watch its tool calls live.
      </p>
      <ul className="mt-6 grid w-full gap-2">
        {EXAMPLE_PROMPTS.map((prompt) => (
          <li key={prompt}>
            <button
              type="button"
              data-testid="example-prompt"
              onClick={() => onPick(prompt)}
              className="w-full rounded-lg border border-zinc-200 px-4 py-2.5 text-left text-sm text-zinc-700 hover:border-zinc-300 hover:bg-zinc-50 dark:border-zinc-800 dark:text-zinc-300 dark:hover:border-zinc-700 dark:hover:bg-zinc-900"
            >
              {prompt}
            </button>
          </li>
        ))}
      </ul>
    </div>
  );
}
