import type { UsageDay, UsageDefinitionRow, UsageFigures, UsageModelRow, UsagePersonRow, UsageReport } from "@/lib/contracts/usage";

/**
 * The usage report summed from stored turns and subagent runs. Pure: the server reads the
 * rows (server/usage/usage-reader.ts) and this adds them up, so the sums are tested alone.
 *
 * A turn's stats hold the whole turn, its subagents included (meters flow up), and a run's
 * hold its descendants. Summing every record would count a subagent's tokens once per
 * agent above it; instead each agent is credited its own spend: its stats minus its direct
 * children's (the master's children are the turn's runs without a parent run), clamped at
 * 0. The own spends of a turn add up to the turn's stats, so the per-model and
 * per-definition rows add up to the totals, which are the turns' stats as stored.
 */

export interface StoredStats {
  chat?: { inputTokens?: number | null; outputTokens?: number | null } | null;
  system?: { inputTokens?: number | null; outputTokens?: number | null } | null;
  cost?: number | null;
}

export interface UsageTurnRow {
  _id: string;
  sessionId: string;
  createdAt: Date;
  model?: string | null;
  endReason?: string | null;
  stats?: StoredStats | null;
}

export interface UsageRunRow {
  _id: string;
  turnId: string;
  parentRunId?: string | null;
  name: string;
  model?: string | null;
  definitionId?: string | null;
  definitionVersion?: number | null;
  endReason?: string | null;
  stats?: StoredStats | null;
}

export interface UsageSummaryInput {
  from: string;
  to: string;
  person: string | null;
  canSeeEveryone: boolean;
  turns: readonly UsageTurnRow[];
  /** Runs of those turns (others are ignored). */
  runs: readonly UsageRunRow[];
  /** Who owns each chat (session id → person id). */
  ownerOf: ReadonlyMap<string, string>;
  /** A definition made in the app, by `<id>:<version>`: its name. */
  definitionNames?: ReadonlyMap<string, string>;
  /** With it, the report has a row per person, named from here (the id when absent). */
  personLabels?: ReadonlyMap<string, string>;
}

export const UNKNOWN_MODEL = "Unknown model";
export const MASTER_LABEL = "Master agent";
const BUDGET_STOP = "budget_exceeded";

/** The four token counts and the cost of one record (or of what it spent on its own). */
interface Spend {
  inputTokens: number;
  outputTokens: number;
  systemInputTokens: number;
  systemOutputTokens: number;
  costUsd: number;
}

export function zeroFigures(): UsageFigures {
  return {
    inputTokens: 0,
    outputTokens: 0,
    systemInputTokens: 0,
    systemOutputTokens: 0,
    tokens: 0,
    costUsd: 0,
    turns: 0,
    runs: 0,
    budgetStops: 0,
  };
}

const num = (n: number | null | undefined) => (typeof n === "number" && Number.isFinite(n) ? n : 0);

export function spendOf(stats: StoredStats | null | undefined): Spend {
  return {
    inputTokens: num(stats?.chat?.inputTokens),
    outputTokens: num(stats?.chat?.outputTokens),
    systemInputTokens: num(stats?.system?.inputTokens),
    systemOutputTokens: num(stats?.system?.outputTokens),
    costUsd: num(stats?.cost),
  };
}

const SPEND_KEYS = ["inputTokens", "outputTokens", "systemInputTokens", "systemOutputTokens", "costUsd"] as const;

/** `whole` minus its children's, each figure clamped at 0 (a record a crash left short must not go negative). */
export function ownSpend(whole: Spend, children: readonly Spend[]): Spend {
  const own = { ...whole };
  for (const key of SPEND_KEYS) own[key] = Math.max(0, whole[key] - children.reduce((sum, c) => sum + c[key], 0));
  return own;
}

/** The UTC day of a time, `YYYY-MM-DD`. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

/** Every UTC day from `from` to `to`, both included. */
export function daysBetween(from: string, to: string): string[] {
  const days: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= Date.parse(`${to}T00:00:00Z`); t += 86_400_000) days.push(utcDay(new Date(t)));
  return days;
}

/** One agent of one turn, with what it spent itself. */
interface Share {
  day: string;
  person: string;
  model: string;
  definitionKey: string;
  definitionLabel: string;
  spend: Spend;
  turn: boolean;
  budgetStop: boolean;
}

function add(target: UsageFigures, share: Share): void {
  for (const key of SPEND_KEYS) target[key] += share.spend[key];
  target.tokens += share.spend.inputTokens + share.spend.outputTokens + share.spend.systemInputTokens + share.spend.systemOutputTokens;
  if (share.turn) target.turns++;
  else target.runs++;
  if (share.budgetStop) target.budgetStops++;
}

function definitionOf(run: UsageRunRow, names: ReadonlyMap<string, string> | undefined): { key: string; label: string } {
  if (run.definitionId) {
    const version = run.definitionVersion ?? 0;
    const name = names?.get(`${run.definitionId}:${version}`) ?? run.name;
    return { key: `app:${run.definitionId}:${version}`, label: version ? `${name} (v${version})` : name };
  }
  return { key: `operator:${run.name}`, label: run.name };
}

/** Each agent's own share of each turn: the master and every run. */
export function sharesOf(input: Pick<UsageSummaryInput, "turns" | "runs" | "ownerOf" | "definitionNames">): Share[] {
  const runsOfTurn = new Map<string, UsageRunRow[]>();
  for (const run of input.runs) {
    const list = runsOfTurn.get(run.turnId);
    if (list) list.push(run);
    else runsOfTurn.set(run.turnId, [run]);
  }
  const shares: Share[] = [];
  for (const turn of input.turns) {
    const runs = runsOfTurn.get(turn._id) ?? [];
    const childrenOf = new Map<string | null, Spend[]>();
    for (const run of runs) {
      const parent = run.parentRunId ?? null;
      childrenOf.set(parent, [...(childrenOf.get(parent) ?? []), spendOf(run.stats)]);
    }
    const day = utcDay(turn.createdAt);
    const person = input.ownerOf.get(turn.sessionId) ?? "";
    shares.push({
      day,
      person,
      model: turn.model || UNKNOWN_MODEL,
      definitionKey: "master",
      definitionLabel: MASTER_LABEL,
      spend: ownSpend(spendOf(turn.stats), childrenOf.get(null) ?? []),
      turn: true,
      budgetStop: turn.endReason === BUDGET_STOP,
    });
    for (const run of runs) {
      const definition = definitionOf(run, input.definitionNames);
      shares.push({
        day,
        person,
        model: run.model || UNKNOWN_MODEL,
        definitionKey: definition.key,
        definitionLabel: definition.label,
        spend: ownSpend(spendOf(run.stats), childrenOf.get(run._id) ?? []),
        turn: false,
        budgetStop: run.endReason === BUDGET_STOP,
      });
    }
  }
  return shares;
}

/** Float sums of many small costs drift in the last digits; a nano-dollar is far below anything shown. */
function settle<T extends UsageFigures>(row: T): T {
  row.costUsd = Math.round(row.costUsd * 1e9) / 1e9;
  return row;
}

function grouped<T extends UsageFigures>(shares: readonly Share[], keyOf: (s: Share) => string, make: (s: Share) => T): T[] {
  const rows = new Map<string, T>();
  for (const share of shares) {
    const key = keyOf(share);
    let row = rows.get(key);
    if (!row) rows.set(key, (row = make(share)));
    add(row, share);
  }
  return [...rows.values()].map(settle).sort((a, b) => b.tokens - a.tokens || b.costUsd - a.costUsd);
}

/** The report: totals, every day of the range, per model, per definition and (with labels) per person. */
export function summarizeUsage(input: UsageSummaryInput): UsageReport {
  const shares = sharesOf(input);
  const totals = zeroFigures();
  const byDay = new Map<string, UsageDay>(daysBetween(input.from, input.to).map((day) => [day, { day, ...zeroFigures() }]));
  for (const share of shares) {
    add(totals, share);
    const day = byDay.get(share.day);
    if (day) add(day, share);
  }
  const models = grouped<UsageModelRow>(
    shares,
    (s) => s.model,
    (s) => ({ model: s.model, ...zeroFigures() }),
  );
  const definitions = grouped<UsageDefinitionRow>(
    shares,
    (s) => s.definitionKey,
    (s) => ({ key: s.definitionKey, label: s.definitionLabel, ...zeroFigures() }),
  );
  const labels = input.personLabels;
  const people = labels
    ? grouped<UsagePersonRow>(
        shares,
        (s) => s.person,
        (s) => ({ personId: s.person, label: labels.get(s.person) ?? s.person, ...zeroFigures() }),
      )
    : undefined;
  return {
    from: input.from,
    to: input.to,
    person: input.person,
    canSeeEveryone: input.canSeeEveryone,
    totals: settle(totals),
    days: [...byDay.values()].map(settle),
    models,
    definitions,
    ...(people ? { people } : {}),
  };
}
