import { AppError, type AgentVersion } from "@/lib/contracts";
import type { SubagentDefinition } from "@/lib/agent/definitions";
import type { StoredDefinition } from "@/lib/agents/turn-agents";
import type { Models } from "@/models";
import { isDuplicateKey } from "@/server/errors";

/** The most definitions (own and shared together) one list or turn reads. */
const MAX_DEFINITIONS = 500;

interface VersionRow {
  _id: string;
  definitionId: string;
  version: number;
  ownerId: string;
  shared: boolean;
  definition: SubagentDefinition;
  author: string;
  createdAt: Date;
  deletedAt?: Date | null;
}

/** One stored definition: whose it is, and its versions, newest first. */
export interface DefinitionHistory {
  id: string;
  ownerId: string;
  shared: boolean;
  deleted: boolean;
  versions: AgentVersion[];
}

/**
 * Queries and writes of the definitions made in the app (models/agent-definition.ts),
 * returning plain objects. It checks nothing about who asks: the agent service does.
 */
export class AgentStore {
  constructor(private readonly models: Pick<Models, "AgentDefinition" | "Session">) {}

  /** The newest version of every definition `ownerId` made and of every shared one, deleted ones left out. */
  async current(ownerId: string): Promise<StoredDefinition[]> {
    const rows = await this.models.AgentDefinition.find({ $or: [{ ownerId }, { shared: true }] })
      .sort({ definitionId: 1, version: -1 })
      .limit(MAX_DEFINITIONS * 4)
      .lean<VersionRow[]>();
    const newest = new Map<string, VersionRow>();
    for (const row of rows) {
      const kept = newest.get(row.definitionId);
      if (!kept || kept.version < row.version) newest.set(row.definitionId, row);
    }
    return [...newest.values()]
      .filter((row) => !row.deletedAt)
      .slice(0, MAX_DEFINITIONS)
      .map((row) => ({
        id: row.definitionId,
        version: row.version,
        ownerId: row.ownerId,
        shared: row.shared,
        definition: row.definition,
        updatedAt: row.createdAt.toISOString(),
      }));
  }

  /** Every version of one definition, newest first; undefined when there is none. */
  async history(id: string): Promise<DefinitionHistory | undefined> {
    const rows = await this.models.AgentDefinition.find({ definitionId: id }).sort({ version: -1 }).lean<VersionRow[]>();
    const newest = rows[0];
    if (!newest) return undefined;
    return {
      id,
      ownerId: newest.ownerId,
      shared: newest.shared,
      deleted: rows.some((row) => Boolean(row.deletedAt)),
      versions: rows.map((row) => ({ version: row.version, createdAt: row.createdAt.toISOString(), definition: row.definition })),
    };
  }

  /**
   * Writes version `version` of a definition. Two writers of the same version race on the
   * document's key: the second is told `conflict` rather than overwriting the first.
   */
  async write(entry: {
    id: string;
    version: number;
    ownerId: string;
    shared: boolean;
    author: string;
    definition: SubagentDefinition;
  }): Promise<Date> {
    const createdAt = new Date();
    try {
      await this.models.AgentDefinition.create({
        _id: `${entry.id}:${entry.version}`,
        definitionId: entry.id,
        version: entry.version,
        ownerId: entry.ownerId,
        shared: entry.shared,
        definition: entry.definition,
        author: entry.author,
        createdAt,
      });
    } catch (error) {
      if (isDuplicateKey(error))
        throw new AppError("conflict", "This definition was changed meanwhile; reopen it to see the newest version.");
      throw error;
    }
    return createdAt;
  }

  /** Marks every version deleted: new turns stop offering it; the panels of runs that ran it still read it. */
  async markDeleted(id: string): Promise<void> {
    await this.models.AgentDefinition.updateMany({ definitionId: id }, { $set: { deletedAt: new Date() } });
  }

  /** The keys of the definitions a chat turned off. */
  async chatOff(sessionId: string): Promise<string[]> {
    const row = await this.models.Session.findById(sessionId, { agentsOff: 1 }).lean<{ agentsOff?: string[] }>();
    return row?.agentsOff ?? [];
  }

  /** Turns one definition off (or on again) for a chat; the caller checked the chat is the person's. */
  async setChatOff(sessionId: string, key: string, off: boolean): Promise<string[]> {
    await this.models.Session.updateOne({ _id: sessionId }, off ? { $addToSet: { agentsOff: key } } : { $pull: { agentsOff: key } });
    return this.chatOff(sessionId);
  }
}
