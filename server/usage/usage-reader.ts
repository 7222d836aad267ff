import type { Models } from "@/models";
import type { UsageRunRow, UsageTurnRow } from "@/lib/usage/usage-summary";

/** The collections a usage report reads. */
export type UsageModels = Pick<Models, "Session" | "Turn" | "SubagentRun" | "AgentDefinition">;

/** What one report is summed from. */
export interface UsageRows {
  turns: UsageTurnRow[];
  runs: UsageRunRow[];
  /** Session id → its owner, for the chats read. */
  ownerOf: Map<string, string>;
  /** `<definition id>:<version>` → the definition's name, for the app-made definitions the runs ran. */
  definitionNames: Map<string, string>;
}

/**
 * Reads the rows of one report, only the fields it sums: the person's chats (everyone's
 * for `null`), their turns started in `[start, end)` through the turns' {sessionId,
 * createdAt} index, the runs of those turns through the runs' {sessionId, turnId} index,
 * and the names of the definitions those runs ran.
 */
export async function readUsageRows(models: UsageModels, person: string | null, start: Date, end: Date): Promise<UsageRows> {
  const sessions = await models.Session.find(person ? { ownerId: person } : {}, { _id: 1, ownerId: 1 }).lean<
    { _id: string; ownerId: string }[]
  >();
  const ownerOf = new Map(sessions.map((s) => [s._id, s.ownerId]));
  if (sessions.length === 0) return { turns: [], runs: [], ownerOf, definitionNames: new Map() };
  const turns = await models.Turn.find(
    { sessionId: { $in: [...ownerOf.keys()] }, createdAt: { $gte: start, $lt: end } },
    { _id: 1, sessionId: 1, createdAt: 1, model: 1, endReason: 1, stats: 1 },
  ).lean<UsageTurnRow[]>();
  if (turns.length === 0) return { turns, runs: [], ownerOf, definitionNames: new Map() };
  const runs = await models.SubagentRun.find(
    { sessionId: { $in: [...new Set(turns.map((t) => t.sessionId))] }, turnId: { $in: turns.map((t) => t._id) } },
    { _id: 1, turnId: 1, parentRunId: 1, name: 1, model: 1, definitionId: 1, definitionVersion: 1, endReason: 1, stats: 1 },
  ).lean<UsageRunRow[]>();
  const versions = [...new Set(runs.filter((r) => r.definitionId).map((r) => `${r.definitionId}:${r.definitionVersion ?? 0}`))];
  const definitions = versions.length
    ? await models.AgentDefinition.find({ _id: { $in: versions } }, { _id: 1, "definition.name": 1 }).lean<
        { _id: string; definition?: { name?: unknown } }[]
      >()
    : [];
  const definitionNames = new Map(
    definitions.flatMap((d) => (typeof d.definition?.name === "string" ? [[d._id, d.definition.name] as const] : [])),
  );
  return { turns, runs, ownerOf, definitionNames };
}
