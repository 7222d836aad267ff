import { startMongoJavaServer } from "@/server/db/mongo-java-server";
import { runLoad } from "./load-scenario";

/**
 * `npm run load [-- --sessions N]`: the load scenario at full size (50 sessions by
 * default) against the project's test database server, or MONGODB_URI when set.
 * `npm run load -- --noisy N`: N quiet sessions, once alone and once beside one identity
 * that floods (sockets, chats, turns, commands), with the quiet ones' latency side by side.
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
    ["heap MB baseline / peak / after", `${r.memoryMB.baseline.toFixed(0)} / ${r.memoryMB.peak.toFixed(0)} / ${r.memoryMB.after.toFixed(0)}`],
  ]);
  if (!(globalThis as { gc?: unknown }).gc) console.log("(run with node --expose-gc for exact memory figures: npm run load does)");
  return r.lost + r.duplicated + r.mismatchedSessions.length === 0;
}

async function noisyNeighbour(uri: string, sessions: number): Promise<boolean> {
  const quiet = await runLoad({ sessions, mongoUri: `${uri}_quiet` });
  const noisy = await runLoad({ sessions, mongoUri: `${uri}_noisy`, noisyNeighbour: true });
  const n = noisy.noisy!;
  print([
    [`${sessions} sessions alone: relay p50 / p99, wall time`, `${quiet.latencyMs.p50.toFixed(1)} / ${quiet.latencyMs.p99.toFixed(1)} ms, ${quiet.seconds.toFixed(1)} s`],
    [`… beside a noisy neighbour`, `${noisy.latencyMs.p50.toFixed(1)} / ${noisy.latencyMs.p99.toFixed(1)} ms, ${noisy.seconds.toFixed(1)} s`],
    ["neighbour: sockets open / refused", `${n.sockets} / ${n.socketsRefused}`],
    ["neighbour: chats created / refused", `${n.chats} / ${n.chatsRefused}`],
    ["neighbour: turns started / refused", `${n.turns} / ${n.turnsRefused}`],
    ["neighbour: commands sent / rate-limited", `${n.commands} / ${n.rateLimited}`],
    ["others: lost / duplicated / mismatched", `${noisy.lost} / ${noisy.duplicated} / ${noisy.mismatchedSessions.length}`],
  ]);
  return noisy.lost + noisy.duplicated + noisy.mismatchedSessions.length === 0;
}

const mongo = process.env.MONGODB_URI ? undefined : await startMongoJavaServer();
const uri = process.env.MONGODB_URI ?? `${mongo!.uri}load_${Date.now()}`;
try {
  const noisy = flag("--noisy");
  const ok = noisy !== undefined ? await noisyNeighbour(uri, noisy) : await plain(uri, flag("--sessions") ?? 50);
  process.exitCode = ok ? 0 : 1;
} finally {
  await mongo?.stop();
}
