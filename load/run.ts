import { startMongoJavaServer } from "@/server/db/mongo-java-server";
import { runClusterLoad, type ClusterLoadReport } from "./cluster-load";
import { runLoad } from "./load-scenario";

/**
 * `npm run load [-- --sessions N]`: the load scenario at full size (50 sessions by
 * default) against the project's test database server, or MONGODB_URI when set.
 * `npm run load -- --noisy N`: N quiet sessions, once alone and once beside one identity
 * that floods (sockets, chats, turns, commands), with the quiet ones' latency side by side.
 * `npm run load -- --processes N [--sessions S]`: the same sessions as real app processes,
 * once on one process (no Redis, as today) and once on N sharing Redis, side by side
 * (load/cluster-load.ts); `--kill-one` SIGKILLs one of the N mid-load instead.
 */
const flag = (name: string) => {
  const at = process.argv.indexOf(name);
  return at > 0 ? Number(process.argv[at + 1]) : undefined;
};

function print(rows: [string, string][]): void {
  const width = Math.max(...rows.map(([k]) => k.length));
  for (const [k, v] of rows) console.log(`${k.padEnd(width)}  ${v}`);
}

async function plain(uri: string, sessions: number): Promise<boolean> {
  const r = await runLoad({ sessions, mongoUri: uri });
  print([
    ["sessions (3 subagents each)", `${r.sessions} (subagents per turn: ${[...new Set(r.subagentsPerTurn)].join(", ")})`],
    ["events relayed", String(r.events)],
    ["wall time", `${r.seconds.toFixed(1)} s`],
    ["events per second", r.eventsPerSecond.toFixed(0)],
    ["relay latency p50 / p99 / max", `${r.latencyMs.p50.toFixed(1)} / ${r.latencyMs.p99.toFixed(1)} / ${r.latencyMs.max.toFixed(1)} ms`],
    ["lost / duplicated events", `${r.lost} / ${r.duplicated}`],
    ["sessions whose live markup differs from stored", String(r.mismatchedSessions.length)],
    [
      "heap MB baseline / peak / after",
      `${r.memoryMB.baseline.toFixed(0)} / ${r.memoryMB.peak.toFixed(0)} / ${r.memoryMB.after.toFixed(0)}`,
    ],
  ]);
  if (!(globalThis as { gc?: unknown }).gc) console.log("(run with node --expose-gc for exact memory figures: npm run load does)");
  return r.lost + r.duplicated + r.mismatchedSessions.length === 0;
}

async function noisyNeighbour(uri: string, sessions: number): Promise<boolean> {
  const quiet = await runLoad({ sessions, mongoUri: `${uri}_quiet` });
  const noisy = await runLoad({ sessions, mongoUri: `${uri}_noisy`, noisyNeighbour: true });
  const n = noisy.noisy!;
  print([
    [
      `${sessions} sessions alone: relay p50 / p99, wall time`,
      `${quiet.latencyMs.p50.toFixed(1)} / ${quiet.latencyMs.p99.toFixed(1)} ms, ${quiet.seconds.toFixed(1)} s`,
    ],
    [
      `… beside a noisy neighbour`,
      `${noisy.latencyMs.p50.toFixed(1)} / ${noisy.latencyMs.p99.toFixed(1)} ms, ${noisy.seconds.toFixed(1)} s`,
    ],
    ["neighbour: sockets open / refused", `${n.sockets} / ${n.socketsRefused}`],
    ["neighbour: chats created / refused", `${n.chats} / ${n.chatsRefused}`],
    ["neighbour: turns started / refused", `${n.turns} / ${n.turnsRefused}`],
    ["neighbour: commands sent / rate-limited", `${n.commands} / ${n.rateLimited}`],
    ["others: lost / duplicated / mismatched", `${noisy.lost} / ${noisy.duplicated} / ${noisy.mismatchedSessions.length}`],
  ]);
  return noisy.lost + noisy.duplicated + noisy.mismatchedSessions.length === 0;
}

const ms = (l: { p50: number; p99: number; samples: number }) => (l.samples === 0 ? "—" : `${l.p50.toFixed(1)} / ${l.p99.toFixed(1)} ms`);
const clean = (r: ClusterLoadReport) => r.lost + r.duplicated + r.mismatched.length + r.sendsRefused === 0;

function clusterRows(r: ClusterLoadReport): [string, string][] {
  return [
    ["sessions / watchers", `${r.sessions} / ${r.watchers} (subagents per turn: ${[...new Set(r.subagentsPerTurn)].join(", ")})`],
    ["sends refused", String(r.sendsRefused)],
    ["events received, wall time", `${r.events}, ${r.seconds.toFixed(1)} s`],
    ["lost / duplicated events", `${r.lost} / ${r.duplicated}`],
    ["snapshot rejoins after a gap (resyncs)", String(r.resyncs)],
    [
      "watchers whose final state differs from stored",
      `${r.mismatched.length}${r.neverEnded ? ` (${r.neverEnded} never saw the end)` : ""}`,
    ],
  ];
}

const progress = (line: string) => console.log(`… ${line}`);

async function processes(uri: string, sessions: number, count: number, killOne: boolean): Promise<boolean> {
  if (killOne) {
    const r = await runClusterLoad({ processes: count, sessions, killOne: true, mongoUri: `${uri}_kill`, progress });
    const k = r.killed!;
    print([
      ...clusterRows(r),
      [`killed (SIGKILL)`, `process ${k.node}, ${k.atSeconds.toFixed(1)} s into the load`],
      [
        "its turns running then / swept by the others",
        `${k.turnsRunning} / ${k.turnsSwept} (${k.runsSwept} subagent runs ended ghost_sweep)`,
      ],
      ["kill → swept end at a watcher elsewhere (slowest)", `${k.sweepSeconds.toFixed(1)} s`],
      ["turns on the live processes completed", `${k.othersCompleted} / ${k.othersTotal}`],
      ["watchers moved to a live process and rejoined", String(k.watchersMoved)],
      ...Object.entries(k.endStates).map(([state, n]): [string, string] => [`watchers ending ${state}`, String(n)]),
    ]);
    for (const m of r.mismatched.slice(0, 10)) console.log(`  ${m}`);
    return r.lost + r.duplicated + r.mismatched.length === 0 && k.turnsSwept === k.turnsRunning && k.othersCompleted === k.othersTotal;
  }
  const one = await runClusterLoad({ processes: 1, sessions, mongoUri: `${uri}_one`, progress });
  const many = await runClusterLoad({ processes: count, sessions, mongoUri: `${uri}_many`, progress });
  const width = 34;
  console.log(`${"".padEnd(52)}${"1 process".padEnd(width)}${count} processes + Redis`);
  const rows = clusterRows(one).map(([k, v], i) => [k, v, clusterRows(many)[i]![1]] as const);
  rows.push(["relay p50 / p99, watchers on the owner's process", ms(one.latencyMs.owner), ms(many.latencyMs.owner)]);
  rows.push(["relay p50 / p99, watchers on other processes", "—", ms(many.latencyMs.others)]);
  for (const [k, a, b] of rows) console.log(`${k.padEnd(52)}${a.padEnd(width)}${b}`);
  console.log("(relay latency: a model chunk written by the scripted model server → its text event at a watcher, over every text event)");
  for (const m of [...one.mismatched, ...many.mismatched].slice(0, 10)) console.log(`  ${m}`);
  return clean(one) && clean(many);
}

const mongo = process.env.MONGODB_URI ? undefined : await startMongoJavaServer();
const uri = process.env.MONGODB_URI ?? `${mongo!.uri}load_${Date.now()}`;
try {
  const noisy = flag("--noisy");
  const count = flag("--processes");
  const ok =
    count !== undefined
      ? await processes(uri, flag("--sessions") ?? 50, count, process.argv.includes("--kill-one"))
      : noisy !== undefined
        ? await noisyNeighbour(uri, noisy)
        : await plain(uri, flag("--sessions") ?? 50);
  process.exitCode = ok ? 0 : 1;
} finally {
  await mongo?.stop();
}
