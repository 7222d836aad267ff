// Prints one closing line, "N passed, N failed", over the vitest and Playwright JSON
// reports, so a reader (or CI) sees the whole suite's result at a glance. The failed
// tests are named just above it, with the first line of their error, because a CI log is
// often read from its tail. Exits 1 when a report is missing or counts no test, since a
// suite that ran nothing proves nothing.
import { existsSync, readFileSync } from "node:fs";
import { relative } from "node:path";

let passed = 0;
let failed = 0;
let skipped = 0;
let problems = 0;
const failures = [];

// Reporters colour their messages; a log file wants the words alone.
// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*m/g;

const firstLine = (text) =>
  String(text ?? "")
    .replace(ANSI, "")
    .split("\n")
    .find((line) => line.trim())
    ?.trim()
    .slice(0, 300) ?? "";

function vitestFailures(report, label) {
  for (const file of report.testResults ?? []) {
    const where = relative(process.cwd(), file.name ?? "");
    const failedTests = (file.assertionResults ?? []).filter((t) => t.status === "failed");
    for (const test of failedTests) {
      // Vitest's JSON report loses a timeout's message (it reads STACK_TRACE_ERROR): the time says it.
      const took = test.duration ? ` (after ${(test.duration / 1000).toFixed(1)} s)` : "";
      failures.push(`${label} ${where} › ${test.fullName}\n    ${firstLine(test.failureMessages?.[0])}${took}`);
    }
    // A file that failed to load has no failed test of its own but is a failure all the same.
    if (file.status === "failed" && failedTests.length === 0) {
      failures.push(`${label} ${where}\n    ${firstLine(file.message)}`);
    }
  }
}

function playwrightFailures(suites, titles = []) {
  for (const suite of suites ?? []) {
    const path = suite.title ? [...titles, suite.title] : titles;
    for (const spec of suite.specs ?? []) {
      for (const test of spec.tests ?? []) {
        if (test.status !== "unexpected") continue;
        const last = test.results?.at(-1);
        failures.push(`[browser] ${[...path, spec.title].join(" › ")}\n    ${firstLine(last?.error?.message)}`);
      }
    }
    playwrightFailures(suite.suites, path);
  }
}

for (const file of process.argv.slice(2)) {
  if (!existsSync(file)) {
    console.error(`missing test report: ${file}`);
    problems++;
    continue;
  }
  const report = JSON.parse(readFileSync(file, "utf8"));
  if ("numPassedTests" in report) {
    passed += report.numPassedTests;
    failed += report.numFailedTests;
    skipped += report.numPendingTests + (report.numTodoTests ?? 0);
    if (report.numTotalTests === 0) problems++;
    vitestFailures(report, file.includes("ferretdb") ? "[ferretdb]" : "[vitest]");
  } else if (report.stats) {
    passed += report.stats.expected + (report.stats.flaky ?? 0);
    failed += report.stats.unexpected;
    skipped += report.stats.skipped;
    if (report.stats.expected + report.stats.unexpected === 0) problems++;
    playwrightFailures(report.suites);
  }
}

if (failures.length) console.log(`\nFailed:\n${failures.map((f) => `  ${f}`).join("\n")}\n`);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ""}`);
process.exit(failed > 0 || problems > 0 ? 1 : 0);
