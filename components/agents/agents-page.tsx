"use client";

import { useEffect, useState } from "react";
import type { AgentDetail, AgentSummary, DefinitionFields } from "@/lib/contracts";
import { agentsHref } from "@/lib/agents/links";
import { PageFrame, Section, When } from "@/components/accounts/page-frame";
import { DANGER_BUTTON, PRIMARY_BUTTON, SECONDARY_BUTTON } from "@/components/accounts/fields";
import { useModels } from "@/components/catalog/use-models";
import { getSocket, request } from "@/components/realtime/socket";
import { useAppInfo } from "@/components/realtime/use-app-info";
import { AgentFormView } from "./agent-form";
import { useAgents } from "./use-agents";
import { DefinitionView } from "./definition-view";

type View =
  { kind: "list" } | { kind: "new" } | { kind: "edit"; agent: AgentDetail } | { kind: "versions"; agent: AgentDetail; version: number };

/**
 * "Agents": the subagent definitions a person sees (their own, shared, the operator's), to
 * create, edit, duplicate and delete, and each stored one's versions. A run's panel links
 * here with `?id=<id>&v=<version>` to the version it ran.
 */
export function AgentsPage() {
  const { list, error, reload } = useAgents();
  const models = useModels();
  const info = useAppInfo();
  const [view, setView] = useState<View>({ kind: "list" });
  const [notice, setNotice] = useState<string | null>(null);
  const mcpTools = (info?.mcpServers ?? []).flatMap((s) => s.tools.map((t) => t.name));

  const open = async (id: string, kind: "edit" | "versions", version?: number) => {
    const ack = await request(getSocket(), "agent:get", { id });
    if (!ack.ok) {
      setNotice(ack.message);
      return;
    }
    setNotice(null);
    setView(kind === "edit" ? { kind, agent: ack.data } : { kind, agent: ack.data, version: version ?? ack.data.version! });
  };

  // A panel's link names a definition and the version its run ran.
  useEffect(() => {
    const params = new URLSearchParams(window.location.search);
    const id = params.get("id");
    if (!id) return;
    const socket = getSocket();
    const go = () => void open(id, "versions", Number(params.get("v")) || undefined);
    if (socket.connected) go();
    else socket.once("connect", go);
    return () => {
      socket.off("connect", go);
    };
  }, []);

  const back = () => {
    setView({ kind: "list" });
    window.history.replaceState(null, "", agentsHref());
    void reload();
  };

  const act = async (done: Promise<{ ok: boolean; message?: string }>, message: string) => {
    const ack = await done;
    setNotice(ack.ok ? message : (ack.message ?? "That did not work."));
    void reload();
  };

  const save = async (fields: DefinitionFields, shared: boolean) => {
    const ack =
      view.kind === "edit"
        ? await request(getSocket(), "agent:update", { id: view.agent.id!, definition: fields, baseVersion: view.agent.version })
        : await request(getSocket(), "agent:create", { definition: fields, ...(shared ? { shared } : {}) });
    if (ack.ok) {
      setNotice(`Saved ${ack.data.definition.name as string} as version ${ack.data.version}.`);
      back();
    }
    return ack;
  };

  return (
    <PageFrame title="Agents">
      <p className="text-sm text-zinc-600 dark:text-zinc-400">
        The subagents the master may hand work to. A change takes effect on each chat&apos;s next turn; runs that already happened keep the
        version they ran.
      </p>
      {notice ? (
        <p role="status" data-testid="agents-notice" className="rounded-md bg-zinc-100 px-3 py-2 text-sm dark:bg-zinc-800">
          {notice}
        </p>
      ) : null}
      {error ? (
        <p role="alert" className="text-sm text-red-700 dark:text-red-400">
          {error}
        </p>
      ) : null}
      {view.kind === "new" || view.kind === "edit" ? (
        <Section title={view.kind === "new" ? "New agent" : `Edit ${String(view.agent.definition.name)} (v${view.agent.version})`}>
          <AgentFormView
            key={view.kind === "edit" ? `${view.agent.id}:${view.agent.version}` : "new"}
            initial={view.kind === "edit" ? view.agent.definition : undefined}
            models={models}
            mcpTools={mcpTools}
            canShare={view.kind === "new" && Boolean(list?.canShare)}
            submitLabel={view.kind === "new" ? "Create" : "Save as a new version"}
            onSave={save}
            onCancel={back}
          />
        </Section>
      ) : view.kind === "versions" ? (
        <Versions agent={view.agent} version={view.version} onPick={(v) => setView({ ...view, version: v })} onBack={back} />
      ) : (
        <>
          <div>
            <button type="button" data-testid="agent-new" onClick={() => setView({ kind: "new" })} className={PRIMARY_BUTTON}>
              New agent
            </button>
          </div>
          <AgentList
            title="Yours"
            empty="None yet. Create one, or duplicate one below."
            agents={list?.mine}
            onOpen={open}
            onDuplicate={(key) => void act(request(getSocket(), "agent:duplicate", { key }), "Duplicated as one of yours.")}
            onDelete={(id) => void act(request(getSocket(), "agent:delete", { id }), "Deleted. Runs that used it keep their record.")}
          />
          <AgentList
            title="Shared"
            empty="No shared agents. An admin can share one with everyone."
            agents={list?.shared}
            onOpen={open}
            onDuplicate={(key) => void act(request(getSocket(), "agent:duplicate", { key }), "Duplicated as one of yours.")}
            onDelete={(id) => void act(request(getSocket(), "agent:delete", { id }), "Deleted.")}
          />
          <AgentList
            title="Operator-provided"
            description="Built in, or from the server's SUBAGENTS_FILE: read-only here."
            agents={list?.operator}
            onOpen={open}
            onDuplicate={(key) => void act(request(getSocket(), "agent:duplicate", { key }), "Duplicated as one of yours.")}
          />
        </>
      )}
    </PageFrame>
  );
}

function AgentList({
  title,
  description,
  empty,
  agents,
  onOpen,
  onDuplicate,
  onDelete,
}: {
  title: string;
  description?: string;
  empty?: string;
  agents: AgentSummary[] | undefined;
  onOpen(id: string, kind: "edit" | "versions"): void;
  onDuplicate(key: string): void;
  onDelete?(id: string): void;
}) {
  return (
    <Section title={title} description={description}>
      {!agents ? (
        <p className="text-sm text-zinc-500">Loading…</p>
      ) : agents.length === 0 ? (
        <p className="text-sm text-zinc-600 dark:text-zinc-400">{empty}</p>
      ) : (
        <ul className="divide-y divide-zinc-200 rounded-lg border border-zinc-200 dark:divide-zinc-800 dark:border-zinc-800">
          {agents.map((agent) => (
            <AgentRow key={agent.key} agent={agent} onOpen={onOpen} onDuplicate={onDuplicate} onDelete={onDelete} />
          ))}
        </ul>
      )}
    </Section>
  );
}

function AgentRow({
  agent,
  onOpen,
  onDuplicate,
  onDelete,
}: {
  agent: AgentSummary;
  onOpen(id: string, kind: "edit" | "versions"): void;
  onDuplicate(key: string): void;
  onDelete?(id: string): void;
}) {
  const [confirming, setConfirming] = useState(false);
  const name = String(agent.definition.name);
  const model = agent.definition.model;
  return (
    <li data-testid="agent-row" data-agent={name} className="space-y-2 px-3 py-2.5">
      <div className="flex flex-wrap items-baseline gap-x-2 gap-y-1">
        <span className="font-medium">{name}</span>
        {agent.version ? <span className="text-xs text-zinc-500 tabular-nums dark:text-zinc-400">v{agent.version}</span> : null}
        <span className="text-xs text-zinc-500 dark:text-zinc-400">
          {typeof model === "string" ? model : typeof model === "object" && model ? String((model as { name?: unknown }).name) : "chat"}
        </span>
        {agent.updatedAt ? (
          <span className="ml-auto text-xs text-zinc-500 dark:text-zinc-400">
            <When iso={agent.updatedAt} />
          </span>
        ) : null}
      </div>
      <p className="line-clamp-2 text-sm text-zinc-600 dark:text-zinc-400">{String(agent.definition.description ?? "")}</p>
      <div className="flex flex-wrap gap-2">
        {agent.id && agent.editable ? (
          <button type="button" data-testid="agent-edit" onClick={() => onOpen(agent.id!, "edit")} className={SECONDARY_BUTTON}>
            Edit
          </button>
        ) : null}
        {agent.id ? (
          <button type="button" onClick={() => onOpen(agent.id!, "versions")} className={SECONDARY_BUTTON}>
            Versions
          </button>
        ) : null}
        <button type="button" data-testid="agent-duplicate" onClick={() => onDuplicate(agent.key)} className={SECONDARY_BUTTON}>
          Duplicate
        </button>
        {agent.id && agent.editable && onDelete ? (
          confirming ? (
            <>
              <button type="button" data-testid="agent-delete-confirm" onClick={() => onDelete(agent.id!)} className={DANGER_BUTTON}>
                Delete {name}
              </button>
              <button type="button" onClick={() => setConfirming(false)} className={SECONDARY_BUTTON}>
                Keep
              </button>
            </>
          ) : (
            <button type="button" data-testid="agent-delete" onClick={() => setConfirming(true)} className={DANGER_BUTTON}>
              Delete
            </button>
          )
        ) : null}
      </div>
    </li>
  );
}

function Versions({ agent, version, onPick, onBack }: { agent: AgentDetail; version: number; onPick(v: number): void; onBack(): void }) {
  const shown = agent.versions.find((v) => v.version === version) ?? agent.versions[0]!;
  return (
    <Section
      title={`${String(shown.definition.name)} · v${shown.version}`}
      description={
        agent.deleted
          ? "Deleted: kept for the runs that used it."
          : shown.version === agent.version
            ? "The newest version."
            : "An older version, read-only."
      }
      testId="agent-version"
    >
      <div className="flex flex-wrap gap-1.5" role="group" aria-label="Versions">
        {agent.versions.map((v) => (
          <button
            key={v.version}
            type="button"
            aria-pressed={v.version === shown.version}
            onClick={() => onPick(v.version)}
            className={`rounded-md border px-2 py-1 text-xs tabular-nums ${v.version === shown.version ? "border-sky-600 bg-sky-50 text-sky-900 dark:border-sky-500 dark:bg-sky-950/50 dark:text-sky-200" : "border-zinc-300 dark:border-zinc-700"}`}
          >
            v{v.version}
          </button>
        ))}
      </div>
      <p className="text-xs text-zinc-500 dark:text-zinc-400">
        Saved <When iso={shown.createdAt} />
      </p>
      <DefinitionView definition={shown.definition} />
      <button type="button" onClick={onBack} className={SECONDARY_BUTTON}>
        Back to the list
      </button>
    </Section>
  );
}
