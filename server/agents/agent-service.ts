import type { ChatAction } from "@/lib/members/can";
import {
  AppError,
  operatorKey,
  type AgentDetail,
  type AgentList,
  type AgentSummary,
  type DefinitionFields,
  type Issue,
} from "@/lib/contracts";
import { isCatalogModel, type SubagentDefinition } from "@/lib/agent/definitions";
import type { TurnAgents, TurnDefinition } from "@/lib/agent/runtime";
import { copyName, parseDefinitionInput } from "@/lib/agents/definition-input";
import { turnDefinitions, type StoredDefinition } from "@/lib/agents/turn-agents";
import type { Logger } from "@/lib/log";
import type { ModelChoices } from "@/server/catalog/chat-settings";
import { newId } from "@/server/data/ids";
import type { AgentStore, DefinitionHistory } from "./agent-store";

/** Definitions one person may keep (deleted ones do not count): each is read by every turn of theirs. */
export const MAX_OWN_DEFINITIONS = 100;

export interface AgentServiceDeps {
  store: AgentStore;
  /** SUBAGENTS_FILE's definitions and the built-ins: listed read-only, held by the runtime. */
  operator: readonly SubagentDefinition[];
  /** An admin may make and change shared definitions (no one is, in `single` mode). */
  isAdmin(userId: string): Promise<boolean>;
  /** The chat's door (server/members/chat-gate.ts): `not_found` unless `userId` may open it, `forbidden` unless their role allows `action`. */
  allowed(userId: string, sessionId: string, action: ChatAction): Promise<unknown>;
  /** The model menu: a definition may name one of its models by key. */
  models?: Pick<ModelChoices, "resolve">;
  log?: Pick<Logger, "warn">;
}

/**
 * What a person can do with subagent definitions, whichever door they came in by (the
 * socket handlers and the HTTP routes both call this). A private definition is someone
 * else's exactly as one that does not exist is: `not_found`, to read, use, copy or change.
 * Only an admin makes or changes a shared one. Nothing is cached: a turn reads the
 * definitions from MongoDB as it starts, so a change made through any process is in the
 * next turn on every process.
 */
export class AgentService {
  constructor(private readonly deps: AgentServiceDeps) {}

  async list(userId: string, sessionId?: string): Promise<AgentList> {
    const [stored, canShare, off] = await Promise.all([
      this.deps.store.current(userId),
      this.deps.isAdmin(userId),
      sessionId ? this.deps.allowed(userId, sessionId, "read").then(() => this.deps.store.chatOff(sessionId)) : Promise.resolve(undefined),
    ]);
    const summaries = stored.map((d) => summary(d, userId, canShare));
    return {
      mine: summaries.filter((s) => s.scope === "mine"),
      shared: summaries.filter((s) => s.scope === "shared"),
      operator: this.deps.operator.map((definition) => ({
        key: operatorKey(definition.name),
        scope: "operator",
        editable: false,
        definition,
      })),
      ...(off ? { off } : {}),
      canShare,
    };
  }

  /** One definition with every version (a deleted one too: the panels of its runs link here). */
  async get(userId: string, id: string): Promise<AgentDetail> {
    const history = await this.visible(userId, id);
    const canShare = history.shared && (await this.deps.isAdmin(userId));
    const newest = history.versions[0]!;
    return {
      key: id,
      id,
      version: newest.version,
      scope: history.shared ? "shared" : "mine",
      editable: !history.deleted && (history.shared ? canShare : history.ownerId === userId),
      ...(history.deleted ? { deleted: true } : {}),
      updatedAt: newest.createdAt,
      definition: newest.definition,
      versions: history.versions,
    };
  }

  async create(userId: string, fields: DefinitionFields, shared = false): Promise<AgentSummary> {
    if (shared && !(await this.deps.isAdmin(userId))) throw new AppError("unauthorized", "Only an admin can make a shared definition.");
    const definition = await this.checked(userId, fields, shared);
    if ((await this.deps.store.current(userId)).filter((d) => d.ownerId === userId).length >= MAX_OWN_DEFINITIONS)
      throw new AppError("limit_reached", `You have ${MAX_OWN_DEFINITIONS} definitions, the most one person can keep. Delete some first.`);
    const id = newId();
    const createdAt = await this.deps.store.write({ id, version: 1, ownerId: userId, shared, author: userId, definition });
    return { key: id, id, version: 1, scope: shared ? "shared" : "mine", editable: true, updatedAt: createdAt.toISOString(), definition };
  }

  /** Writes the next version; the versions before it stay as they were. */
  async update(userId: string, id: string, fields: DefinitionFields, baseVersion?: number): Promise<AgentSummary> {
    const history = await this.editable(userId, id);
    const current = history.versions[0]!.version;
    if (baseVersion !== undefined && baseVersion !== current)
      throw new AppError("conflict", `This definition is at version ${current} now; reopen it to see the changes.`);
    const definition = await this.checked(userId, fields, history.shared, id);
    const version = current + 1;
    const createdAt = await this.deps.store.write({
      id,
      version,
      ownerId: history.ownerId,
      shared: history.shared,
      author: userId,
      definition,
    });
    const scope = history.shared ? "shared" : "mine";
    return { key: id, id, version, scope, editable: true, updatedAt: createdAt.toISOString(), definition };
  }

  /**
   * A copy, as the person's own, of any definition they see (the operator's too). An
   * operator's model of its own is not the person's to use: the copy runs on the chat's model.
   */
  async duplicate(userId: string, key: string): Promise<AgentSummary> {
    const operator = this.deps.operator.find((d) => operatorKey(d.name) === key);
    const source = operator ?? ((await this.visible(userId, key)).versions[0]!.definition as SubagentDefinition);
    const taken = new Set((await this.deps.store.current(userId)).filter((d) => !d.shared).map((d) => d.definition.name));
    const model = typeof source.model === "object" ? "chat" : source.model;
    return this.create(userId, { ...source, model, name: copyName(source.name, taken) });
  }

  async delete(userId: string, id: string): Promise<{ id: string }> {
    await this.editable(userId, id);
    await this.deps.store.markDeleted(id);
    return { id };
  }

  /** Turns a definition on or off for one chat of the person's; the next turn reads it. */
  async setForChat(userId: string, sessionId: string, key: string, enabled: boolean): Promise<{ off: string[] }> {
    await this.deps.allowed(userId, sessionId, "settings");
    if (!this.deps.operator.some((d) => operatorKey(d.name) === key)) await this.visible(userId, key);
    return { off: await this.deps.store.setChatOff(sessionId, key, !enabled) };
  }

  /**
   * The definitions a turn of `ownerId`'s chat adds to the operator's, read now. One naming a
   * model of the menu the catalog no longer offers is left out of the turn (and logged):
   * the master is not offered a subagent that cannot run.
   */
  async forTurn(ownerId: string, sessionId: string): Promise<TurnAgents> {
    const [stored, off] = await Promise.all([this.deps.store.current(ownerId), this.deps.store.chatOff(sessionId)]);
    const { add, offNames } = turnDefinitions(
      stored,
      ownerId,
      off,
      this.deps.operator.map((d) => d.name),
    );
    const resolved = await Promise.all(add.map((d) => this.forRun(d)));
    return { add: resolved.filter((d): d is TurnDefinition => d !== undefined), off: offNames };
  }

  private async forRun(stored: StoredDefinition): Promise<TurnDefinition | undefined> {
    const { definition } = stored;
    const ref = { id: stored.id, version: stored.version };
    // Never stored (parseDefinitionInput refuses it); a row written some other way must not open the server's keys either.
    if (typeof definition.model === "object") return undefined;
    if (!isCatalogModel(definition.model)) return { definition, ref };
    const model = await this.deps.models?.resolve(definition.model);
    if (model) return { definition, ref, model };
    this.deps.log?.warn("A subagent definition names a model the catalog does not offer; left out of the turn", {
      definition: stored.id,
      model: definition.model,
    });
    return undefined;
  }

  /** The fields checked by the definitions' schema, a model key against the menu, and the name free in its list. */
  private async checked(userId: string, fields: DefinitionFields, shared: boolean, id?: string): Promise<SubagentDefinition> {
    const input = parseDefinitionInput(fields);
    if (!input.ok) throw invalid(input.issues);
    const { definition } = input;
    const issues: Issue[] = [];
    if (isCatalogModel(definition.model) && !(await this.deps.models?.resolve(definition.model)))
      issues.push({ path: "model", message: `"${definition.model}" is not a model of the model menu` });
    const sameList = (await this.deps.store.current(userId)).filter(
      (d) => d.shared === shared && d.id !== id && (shared || d.ownerId === userId),
    );
    if (sameList.some((d) => d.definition.name === definition.name))
      issues.push({ path: "name", message: `${shared ? "a shared definition" : "one of yours"} is already named "${definition.name}"` });
    if (issues.length) throw invalid(issues);
    return definition;
  }

  /** The definition if `userId` may see it (theirs, or shared); `not_found` otherwise. */
  private async visible(userId: string, id: string): Promise<DefinitionHistory> {
    const history = await this.deps.store.history(id);
    if (!history || (!history.shared && history.ownerId !== userId)) throw notFound();
    return history;
  }

  /** The definition if `userId` may change it: their own, or a shared one for an admin. */
  private async editable(userId: string, id: string): Promise<DefinitionHistory> {
    const history = await this.visible(userId, id);
    if (history.deleted) throw notFound();
    if (history.shared && !(await this.deps.isAdmin(userId)))
      throw new AppError("unauthorized", "Only an admin can change a shared definition.");
    return history;
  }
}

function summary(stored: StoredDefinition, userId: string, admin: boolean): AgentSummary {
  const shared = stored.shared;
  return {
    key: stored.id,
    id: stored.id,
    version: stored.version,
    scope: shared ? "shared" : "mine",
    editable: shared ? admin : stored.ownerId === userId,
    updatedAt: stored.updatedAt,
    definition: stored.definition,
  };
}

function invalid(issues: Issue[]): AppError {
  const first = issues[0];
  return new AppError("bad_request", first ? `${first.path || "definition"}: ${first.message}` : "Invalid definition.", issues);
}

function notFound(): AppError {
  return new AppError("not_found", "That definition does not exist.");
}
