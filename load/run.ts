import { startMongoJavaServer } from "@/server/db/mongo-java-server";
import { runLoad } from "./load-scenario";

/**
 * `npm run load [-- --sessions N]`: the load scenario at full size (50 sessions by
 * default) against the project's test database server, or MONGODB_URI when set.
 */
const arg = process.argv.indexOf("--sessions");
const sessions = arg > 0 ? Number(process.argv[arg + 1]) : 50;

const mongo = process.env.MONGODB_URI ? undefined : await startMongoJavaServer();
const uri = process.env.MONGODB_URI ?? `${mongo!.uri}load_${Date.now()}`;
try {
  const r = await runLoad({ sessions, mongoUri: uri });
  const rows: [string, string][] = [
    ["sessions (3 subagents each)", `${r.sessions} (subagents per turn: ${[...new Set(r.subagentsPerTurn)].join(", ")})`],
    ["events relayed", String(r.events)],
    ["wall time", `${r.seconds.toFixed(1)} s`],
    ["events per second", r.eventsPerSecond.toFixed(0)],
    ["relay latency p50 / p99 / max", `${r.latencyMs.p50.toFixed(1)} / ${r.latencyMs.p99.toFixed(1)} / ${r.latencyMs.max.toFixed(1)} ms`],
    ["lost / duplicated events", `${r.lost} / ${r.duplicated}`],
    ["sessions whose live markup differs from stored", String(r.mismatchedSessions.length)],
    ["heap MB baseline / peak / after", `${r.memoryMB.baseline.toFixed(0)} / ${r.memoryMB.peak.toFixed(0)} / ${r.memoryMB.after.toFixed(0)}`],
  ];
  const width = Math.max(...rows.map(([k]) => k.length));
  for (const [k, v] of rows) console.log(`${k.padEnd(width)}  ${v}`);
  if (!(globalThis as { gc?: unknown }).gc) console.log("(run with node --expose-gc for exact memory figures: npm run load does)");
  process.exitCode = r.lost + r.duplicated + r.mismatchedSessions.length === 0 ? 0 : 1;
} finally {
  await mongo?.stop();
}
