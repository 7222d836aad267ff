"use client";

import { useState, type FormEvent } from "react";
import { MAX_STEER_CHARS } from "@/lib/contracts";
import { usePanelActions } from "./panel-actions";

export interface SubagentControlsProps {
  runId: string;
  name: string;
}

/**
 * Steer and Kill for a running subagent. Kill asks first (it discards the run's in-flight
 * work); steer does not (it only redirects), matching seed 003's deliberate asymmetry.
 */
export function SubagentControls({ runId, name }: SubagentControlsProps) {
  const actions = usePanelActions();
  const [message, setMessage] = useState("");
  const [pending, setPending] = useState<"steer" | "kill" | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [notice, setNotice] = useState<{ tone: "ok" | "error"; text: string } | null>(null);
  if (!actions) return null;

  const steer = async (e: FormEvent) => {
    e.preventDefault();
    const text = message.trim();
    if (!text || pending) return;
    setPending("steer");
    setNotice(null);
    const ack = await actions.steer(runId, text);
    setPending(null);
    if (ack.ok) {
      setMessage("");
      setNotice({ tone: "ok", text: "Steering message sent." });
    } else {
      setNotice({ tone: "error", text: `Could not steer: ${ack.message}` });
    }
  };

  const kill = async () => {
    setPending("kill");
    setNotice(null);
    const ack = await actions.kill(runId);
    setPending(null);
    setConfirming(false);
    if (!ack.ok) setNotice({ tone: "error", text: `Could not kill: ${ack.message}` });
  };

  return (
    <div className="space-y-2 border-t border-zinc-200 pt-3 dark:border-zinc-800">
      <form onSubmit={steer} className="flex gap-2">
        <label className="sr-only" htmlFor={`steer-${runId}`}>
          Steer {name}
        </label>
        <input
          id={`steer-${runId}`}
          data-testid="steer-input"
          value={message}
          onChange={(e) => setMessage(e.target.value)}
          maxLength={MAX_STEER_CHARS}
          placeholder="Steer this subagent…"
          autoComplete="off"
          className="min-w-0 flex-1 rounded-md border border-zinc-300 bg-white px-2.5 py-1.5 text-sm placeholder:text-zinc-400 focus:border-sky-500 focus:outline-none dark:border-zinc-700 dark:bg-zinc-950"
        />
        <button
          type="submit"
          data-testid="steer-send"
          disabled={!message.trim() || pending !== null}
          className="rounded-md bg-zinc-900 px-3 py-1.5 text-sm font-medium text-white hover:bg-zinc-700 disabled:opacity-40 dark:bg-zinc-100 dark:text-zinc-900 dark:hover:bg-zinc-300"
        >
          {pending === "steer" ? "Sending…" : "Steer"}
        </button>
      </form>
      <div className="flex flex-wrap items-center gap-2 text-sm">
        {confirming ? (
          <>
            <span className="text-zinc-700 dark:text-zinc-300">Kill {name}? Its unfinished work is discarded.</span>
            <button
              type="button"
              data-testid="kill-confirm"
              onClick={kill}
              disabled={pending !== null}
              className="rounded-md bg-red-600 px-3 py-1 font-medium text-white hover:bg-red-700 disabled:opacity-50"
            >
              {pending === "kill" ? "Killing…" : "Yes, kill"}
            </button>
            <button
              type="button"
              onClick={() => setConfirming(false)}
              className="rounded-md px-3 py-1 text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
            >
              Cancel
            </button>
          </>
        ) : (
          <button
            type="button"
            data-testid="kill"
            onClick={() => setConfirming(true)}
            className="rounded-md border border-red-200 px-3 py-1 font-medium text-red-700 hover:bg-red-50 dark:border-red-900 dark:text-red-400 dark:hover:bg-red-950"
          >
            Kill
          </button>
        )}
        {notice ? (
          <span role="status" className={notice.tone === "ok" ? "text-emerald-700 dark:text-emerald-400" : "text-red-700 dark:text-red-400"}>
            {notice.text}
          </span>
        ) : null}
      </div>
    </div>
  );
}
