"use client";

import { useRouter } from "next/navigation";
import { useRef, useState } from "react";
import { z } from "zod";
import { UploadIcon } from "@/components/ui/icons";

const answerSchema = z.union([
  z.object({ session: z.object({ sessionId: z.string() }) }),
  z.object({ error: z.object({ message: z.string() }) }),
]);

/**
 * Imports a session file (a chat exported as JSON) as a new chat, then opens it. The file
 * goes to the server as it is (a Blob body streams); the server checks it whole and
 * either creates the chat or says what is wrong, creating nothing.
 */
export function ImportButton({ onDone }: { onDone?: () => void }) {
  const input = useRef<HTMLInputElement>(null);
  const router = useRouter();
  const [state, setState] = useState<{ busy: boolean; error: string | null }>({ busy: false, error: null });

  const upload = async (file: File) => {
    setState({ busy: true, error: null });
    try {
      const res = await fetch("/api/sessions/import", {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: file,
        credentials: "same-origin",
      });
      const answer = answerSchema.safeParse(await res.json().catch(() => null));
      if (res.ok && answer.success && "session" in answer.data) {
        setState({ busy: false, error: null });
        onDone?.();
        router.push(`/c/${answer.data.session.sessionId}`);
        return;
      }
      const message = answer.success && "error" in answer.data ? answer.data.error.message : `The import failed (${res.status}).`;
      setState({ busy: false, error: message });
    } catch {
      setState({ busy: false, error: "Could not reach the server; nothing was imported." });
    }
  };

  return (
    <div>
      <input
        ref={input}
        type="file"
        accept=".json,application/json"
        className="sr-only"
        tabIndex={-1}
        aria-hidden="true"
        data-testid="import-file"
        onChange={(e) => {
          const file = e.target.files?.[0];
          e.target.value = "";
          if (file) void upload(file);
        }}
      />
      <button
        type="button"
        onClick={() => input.current?.click()}
        disabled={state.busy}
        data-testid="import-session"
        className="flex w-full items-center justify-center gap-2 rounded-md px-3 py-1.5 text-xs text-zinc-600 hover:bg-zinc-200 disabled:opacity-60 dark:text-zinc-300 dark:hover:bg-zinc-800"
      >
        <UploadIcon size={14} />
        {state.busy ? "Importing…" : "Import a chat"}
      </button>
      {state.error ? (
        <p role="alert" className="mt-1 px-1 text-xs break-words text-red-700 dark:text-red-400">
          {state.error}
        </p>
      ) : null}
    </div>
  );
}
