"use client";

import { useEffect, useState } from "react";
import type { McpServerInfo, RemoteSignInInfo } from "@/lib/contracts";
import { getSocket, request } from "@/components/realtime/socket";
import { WrenchIcon } from "@/components/ui/icons";
import { PopoverMenu } from "@/components/ui/popover-menu";
import {
  mcpSignInRoute,
  remoteSignInRoute,
  signedInText,
  signInOutcome,
  SIGN_IN_ERROR_PARAM,
  SIGNED_IN_PARAM,
  type SignInOutcome,
} from "@/lib/oauth/sign-in-routes";
import { SignInButton } from "./sign-in-button";

const STATUS_TEXT: Record<McpServerInfo["status"], string> = {
  connecting: "connecting…",
  connected: "connected",
  failed: "failed, retrying",
  restarting: "restarting",
  disabled: "disabled",
  needs_sign_in: "needs sign-in",
};

const DOT: Record<McpServerInfo["status"], string> = {
  connecting: "bg-amber-500",
  connected: "bg-emerald-500",
  failed: "bg-red-500",
  restarting: "bg-amber-500",
  disabled: "bg-zinc-400",
  needs_sign_in: "bg-sky-500",
};

const HEADING = "mb-2 text-xs font-medium tracking-wide text-zinc-500 uppercase dark:text-zinc-400";

/** Whether a server each person signs in to counts as signed in (its button says Sign out); null: no button. */
export function mcpSignedIn(server: McpServerInfo): boolean | null {
  if (!server.signIn || server.status === "disabled") return null;
  return server.status !== "needs_sign_in";
}

/**
 * The header's view of the MCP tool servers and of the remote agents each person signs in
 * to: a small button with how many servers are connected (or, with no servers, how many
 * agents this person is signed in to), opening a listing of each server, its state (and
 * last error) and its tools, then of each remote agent. The listing asks the server again
 * when it opens (then every 2 s while it is open), and the button every 15 s while a server
 * is not yet (or no longer) connected, so both show the state of now. Names, errors and
 * descriptions come from the servers: React renders them as text. A server or agent each
 * person signs in to has Sign in / Sign out; what it does is then this person's own.
 */
export function ToolServers({
  servers: initialServers,
  remoteAgents: initialAgents,
}: {
  servers: McpServerInfo[];
  remoteAgents: RemoteSignInInfo[];
}) {
  const [open, setOpen] = useState(false);
  const [servers, setServers] = useState(initialServers);
  const [agents, setAgents] = useState(initialAgents);

  useEffect(() => setServers(initialServers), [initialServers]);
  useEffect(() => setAgents(initialAgents), [initialAgents]);

  // Back from a server's sign-in page: open the listing with how it went, and tidy the address.
  const [outcome, setOutcome] = useState<SignInOutcome | null>(null);
  useEffect(() => {
    const found = signInOutcome(window.location.search);
    if (!found) return;
    setOutcome(found);
    setOpen(true);
    const url = new URL(window.location.href);
    url.searchParams.delete(SIGNED_IN_PARAM);
    url.searchParams.delete(SIGN_IN_ERROR_PARAM);
    window.history.replaceState(window.history.state, "", url);
  }, []);

  // Waiting for a person to sign in is not a state that changes on its own.
  const unsettled = servers.some((s) => s.status !== "connected" && s.status !== "disabled" && s.status !== "needs_sign_in");
  const [refreshes, setRefreshes] = useState(0);
  useEffect(() => {
    if (!unsettled && !open) return;
    let alive = true;
    const refresh = () =>
      void request(getSocket(), "app:info", {}).then((ack) => {
        if (!alive || !ack.ok) return;
        setServers(ack.data.mcpServers ?? []);
        setAgents(ack.data.remoteAgents ?? []);
      });
    if (open) refresh();
    // An open listing is being read: it follows a retrying server closely, the button loosely.
    const timer = unsettled ? setInterval(refresh, open ? 2_000 : 15_000) : undefined;
    return () => {
      alive = false;
      clearInterval(timer);
    };
  }, [unsettled, open, refreshes]);

  const connected = servers.filter((s) => s.status === "connected").length;
  const active = servers.filter((s) => s.status !== "disabled").length;
  const troubled = servers.some((s) => s.status === "failed" || s.status === "restarting");
  const signedIn = agents.filter((a) => a.signedIn).length;
  // With no MCP servers the button counts the agents, and says so.
  const [shown, of, label] = servers.length
    ? [connected, active, `Tool servers: ${connected} of ${active} connected`]
    : [signedIn, agents.length, `Remote agents: signed in to ${signedIn} of ${agents.length}`];
  const changed = () => setRefreshes((n) => n + 1);
  return (
    <PopoverMenu
      open={open}
      onOpenChange={setOpen}
      button={
        <>
          <WrenchIcon />
          <span className="tabular-nums">
            {shown}/{of}
          </span>
          {troubled ? <span className="size-1.5 rounded-full bg-red-500" aria-hidden="true" /> : null}
        </>
      }
      buttonLabel={label}
      title={servers.length ? "Tool servers (MCP)" : "Remote agents"}
      buttonTestId="tool-servers-button"
      buttonClassName="flex items-center gap-1.5 rounded-md px-2 py-1.5 text-xs text-zinc-600 hover:bg-zinc-100 dark:text-zinc-300 dark:hover:bg-zinc-800"
      label="Tool servers"
      panelTestId="tool-servers-panel"
      panelClassName="absolute right-0 z-30 mt-1 max-h-[70vh] w-[min(24rem,calc(100vw-1rem))] max-sm:fixed max-sm:inset-x-2 max-sm:top-12 max-sm:w-auto overflow-y-auto rounded-lg border border-zinc-200 bg-white p-3 text-sm shadow-lg outline-none dark:border-zinc-700 dark:bg-zinc-900"
    >
      {outcome ? (
        <p
          role="status"
          data-testid="tool-server-sign-in-outcome"
          className={`mb-2 text-xs break-words ${outcome.ok ? "text-emerald-700 dark:text-emerald-400" : "text-red-700 dark:text-red-400"}`}
        >
          {outcome.ok ? signedInText(outcome.server) : outcome.message}
        </p>
      ) : null}
      {servers.length ? <h2 className={HEADING}>Tool servers (MCP)</h2> : null}
      <ul className="space-y-3">
        {servers.map((server) => (
          <li key={server.name} data-testid="tool-server">
            <div className="flex items-center gap-2">
              <span className={`size-2 shrink-0 rounded-full ${DOT[server.status]}`} aria-hidden="true" />
              <span className="font-mono text-zinc-900 dark:text-zinc-100">{server.name}</span>
              <span className="text-xs text-zinc-500 dark:text-zinc-400">{STATUS_TEXT[server.status]}</span>
            </div>
            {server.error && server.status !== "needs_sign_in" ? (
              <p className="mt-1 text-xs break-words text-red-700 dark:text-red-400">{server.error}</p>
            ) : null}
            {server.tools.length ? (
              <ul className="mt-1 ml-4 space-y-0.5">
                {server.tools.map((tool) => (
                  <li key={tool.name} title={tool.description} className="truncate font-mono text-xs text-zinc-600 dark:text-zinc-300">
                    {tool.name}
                  </li>
                ))}
              </ul>
            ) : server.status === "connected" ? (
              <p className="mt-1 ml-4 text-xs text-zinc-500 dark:text-zinc-400">No tools.</p>
            ) : null}
            {mcpSignedIn(server) !== null ? (
              <SignInButton route={(action) => mcpSignInRoute(server.name, action)} signedIn={mcpSignedIn(server)!} onChanged={changed} />
            ) : null}
          </li>
        ))}
      </ul>
      {agents.length ? (
        <>
          <h2 className={`${HEADING} ${servers.length ? "mt-4" : ""}`}>Remote agents</h2>
          <ul className="space-y-3">
            {agents.map((agent) => (
              <li key={agent.name} data-testid="remote-agent-sign-in">
                <div className="flex min-w-0 items-center gap-2">
                  <span className={`size-2 shrink-0 rounded-full ${agent.signedIn ? "bg-emerald-500" : "bg-sky-500"}`} aria-hidden="true" />
                  <span className="font-mono text-zinc-900 dark:text-zinc-100">{agent.name}</span>
                  <span className="text-xs text-zinc-500 dark:text-zinc-400">{agent.signedIn ? "signed in" : "needs sign-in"}</span>
                </div>
                <p className="mt-0.5 ml-4 truncate text-xs text-zinc-500 dark:text-zinc-400" title={agent.host}>
                  A2A · {agent.host}
                </p>
                <SignInButton route={(action) => remoteSignInRoute(agent.name, action)} signedIn={agent.signedIn} onChanged={changed} />
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </PopoverMenu>
  );
}
