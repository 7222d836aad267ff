import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { openBenchDatabase } from "./bench-database";
import { reportTables, summaryTable } from "./report-tables";
import { runSuite, type BenchMode, type BenchReport } from "./suite";
import { renderMarkdown, renderText, type Table } from "./table";

/**
 * `npm run bench` — every benchmark once on this machine, a table on stdout and the
 * figures as JSON in bench/results/ (<timestamp>.json and latest.json; git ignores them).
 *
 *   --smoke        tiny sizes, each benchmark once (what bench/bench.test.ts runs)
 *   --no-browser   skip the Chromium part
 *   --markdown     print the tables as Markdown (for README's Performance section)
 *   --print [file] only print a saved report (default bench/results/latest.json)
 */
async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const args = new Set(argv);
  const render = args.has("--markdown") ? renderMarkdown : renderText;
  const printIndex = argv.indexOf("--print");
  if (printIndex >= 0) {
    const next = argv[printIndex + 1];
    const file = next && !next.startsWith("--") ? next : "bench/results/latest.json";
    print(JSON.parse(readFileSync(file, "utf8")) as BenchReport, render);
    return;
  }

  const mode: BenchMode = args.has("--smoke") ? "smoke" : "full";
  quietRepeatedWarnings();
  const progress = (line: string) => process.stderr.write(`… ${line}\n`);
  progress(`starting the database (${process.env.MONGODB_URI ? "MONGODB_URI" : "mongo-java-server"})`);
  const db = await openBenchDatabase();
  let report: BenchReport;
  try {
    report = await runSuite({ mode, db, browser: !args.has("--no-browser"), progress });
  } finally {
    await db.close();
  }
  print(report, render);

  const dir = path.resolve("bench/results");
  mkdirSync(dir, { recursive: true });
  const stamp = report.startedAt.replace(/[:.]/g, "-");
  const json = JSON.stringify(report, null, 2);
  const file = path.join(dir, `${stamp}${mode === "smoke" ? "-smoke" : ""}.json`);
  writeFileSync(file, json);
  if (mode === "full") writeFileSync(path.join(dir, "latest.json"), json);
  process.stdout.write(
    `\nFigures written to ${path.relative(process.cwd(), file)}${mode === "full" ? " and bench/results/latest.json" : ""}\n`,
  );
}

function print(report: BenchReport, render: (table: Table) => string): void {
  const m = report.machine;
  process.stdout.write(
    `\nDelegate benchmarks (${report.mode}) — ${m.cpus} × ${m.cpuModel}, ${m.memoryGb} GB, Node ${m.node}, ${m.database}, ` +
      `load ${m.loadAverageAtStart} at start, ${report.durationS} s\n\n`,
  );
  process.stdout.write([...reportTables(report), summaryTable(report)].map(render).join("\n\n") + "\n");
}

/** Dependencies repeat the same deprecation warning per call; once is enough here. */
function quietRepeatedWarnings(): void {
  const seen = new Set<string>();
  process.removeAllListeners("warning");
  process.on("warning", (warning) => {
    if (seen.has(warning.message)) return;
    seen.add(warning.message);
    process.stderr.write(`(warning) ${warning.name}: ${warning.message}\n`);
  });
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`benchmark failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
