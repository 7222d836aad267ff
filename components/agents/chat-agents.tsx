"use client";

import Link from "next/link";
import { useId, useState } from "react";
import type { AgentSummary } from "@/lib/contracts";
import { agentsHref } from "@/lib/agents/links";
import { getSocket, request } from "@/components/realtime/socket";
import { PopoverMenu } from "@/components/ui/popover-menu";
import { useAgents } from "./use-agents";

/**
 * "Agents" under the composer: the subagents this chat's master may call, each to turn on
 * or off for this chat (its next turn reads the choice), and the way to the agents page.
 * Without a chat yet, only the way to the page.
 */
export function ChatAgents({ sessionId }: { sessionId?: string }) {
  if (!sessionId)
    return (
      <Link href={agentsHref()} data-testid="agents-link" className={BUTTON_CLASS}>
        Agents
      </Link>
    );
  return <ChatAgentsPanel sessionId={sessionId} />;
}

const BUTTON_CLASS = "rounded-md px-1.5 py-0.5 text-xs text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800";

function ChatAgentsPanel({ sessionId }: { sessionId: string }) {
  const [open, setOpen] = useState(false);
  const titleId = useId();
  // Read with the chat, so the button can say how many are off before it is opened.
  const { list, error, reload } = useAgents(sessionId);
  const [problem, setProblem] = useState<string | null>(null);
  // The box follows a click at once; the server's answer (the chat's whole off list) then stands.
  const [changed, setChanged] = useState<string[] | null>(null);
  const before = changed ?? list?.off ?? [];
  const off = new Set(before);
  const all: AgentSummary[] = list ? [...list.mine, ...list.shared, ...list.operator] : [];
  const toggle = async (key: string, enabled: boolean) => {
    setChanged(enabled ? before.filter((k) => k !== key) : [...before, key]);
    const ack = await request(getSocket(), "chat:agents", { sessionId, key, enabled });
    setProblem(ack.ok ? null : ack.message);
    setChanged(ack.ok ? ack.data.off : before);
  };
  return (
    <PopoverMenu
      kind="dialog"
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        // Opening reads the chat's choice afresh (another tab may have changed it).
        if (next) {
          setChanged(null);
          void reload();
        }
      }}
      button={<span>Agents{off.size ? ` · ${off.size} off` : ""}</span>}
      buttonLabel="Agents for this chat"
      buttonTestId="chat-agents-button"
      buttonClassName={BUTTON_CLASS}
      labelledBy={titleId}
      panelTestId="chat-agents"
      panelClassName="absolute bottom-full left-0 z-30 mb-1 w-[min(24rem,calc(100vw-1rem))] max-sm:fixed max-sm:inset-x-2 max-sm:bottom-24 max-sm:w-auto space-y-2 rounded-lg border border-zinc-200 bg-white p-3 text-sm shadow-lg dark:border-zinc-700 dark:bg-zinc-900"
    >
      <h2 id={titleId} className="font-semibold">
        Agents in this chat
      </h2>
      <p className="text-xs text-zinc-600 dark:text-zinc-400">The master may call those checked; the next turn reads the change.</p>
      {!list && !error ? <p className="text-xs text-zinc-500">Loading…</p> : null}
      <ul className="max-h-64 space-y-1 overflow-y-auto">
        {all.map((agent) => (
          <li key={agent.key}>
            <label className="flex items-start gap-2 rounded px-1 py-1 hover:bg-zinc-50 dark:hover:bg-zinc-800/60">
              <input
                type="checkbox"
                data-testid={`chat-agent-${String(agent.definition.name)}`}
                checked={!off.has(agent.key)}
                onChange={(e) => void toggle(agent.key, e.target.checked)}
                className="mt-0.5 size-4 accent-sky-700"
              />
              <span className="min-w-0">
                <span className="font-medium">{String(agent.definition.name)}</span>
                <span className="ml-1.5 text-xs text-zinc-500 dark:text-zinc-400">
                  {agent.scope === "operator" ? "operator-provided" : agent.scope === "shared" ? "shared" : `v${agent.version}`}
                </span>
                <span className="block truncate text-xs text-zinc-600 dark:text-zinc-400">
                  {String(agent.definition.description ?? "")}
                </span>
              </span>
            </label>
          </li>
        ))}
      </ul>
      {problem || error ? (
        <p role="alert" className="text-xs text-red-700 dark:text-red-400">
          {problem ?? error}
        </p>
      ) : null}
      <Link
        href={agentsHref()}
        data-testid="agents-link"
        className="inline-block text-xs font-medium text-sky-700 hover:underline dark:text-sky-400"
      >
        Manage agents →
      </Link>
    </PopoverMenu>
  );
}
