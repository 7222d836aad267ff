"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { AlertIcon } from "@/components/ui/icons";
import { Composer } from "./composer";
import { EmptyState } from "./empty-state";
import { setPendingPrompt } from "./pending-prompt";
import { useSessions } from "./sessions-context";

/**
 * The start page: no session exists until the first prompt, so visiting it never leaves
 * empty chats behind. Sending creates one and hands the prompt to its page.
 */
export function HomeView() {
  const { create } = useSessions();
  const router = useRouter();
  const [error, setError] = useState<string | null>(null);

  const start = async (text: string): Promise<boolean> => {
    setError(null);
    const ack = await create();
    if (!ack.ok) {
      setError(`Could not start a chat: ${ack.message}`);
      return false;
    }
    setPendingPrompt(ack.data.sessionId, text);
    router.push(`/c/${encodeURIComponent(ack.data.sessionId)}`);
    return true;
  };

  return (
    <div className="flex h-full flex-col">
      <div className="min-h-0 flex-1 overflow-y-auto">
        <EmptyState onPick={(prompt) => void start(prompt)} />
      </div>
      {error ? (
        <div className="mx-auto w-full max-w-3xl px-3 pb-2 sm:px-4">
          <div
            role="alert"
            data-testid="command-error"
            className="flex items-start gap-2 rounded-lg border border-red-200 bg-red-50 px-3 py-2 text-sm text-red-800 dark:border-red-900/70 dark:bg-red-950/40 dark:text-red-300"
          >
            <AlertIcon className="mt-0.5 shrink-0" />
            <span className="min-w-0 break-words">{error}</span>
          </div>
        </div>
      ) : null}
      <Composer onSend={start} running={false} />
    </div>
  );
}
