import { cpSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEnv } from "@/lib/env";
import { createDemoModel } from "@/lib/model/demo-model";
import { createWorkspaceTools } from "@/lib/tools";
import { BUILTIN_DEFINITIONS } from "../definitions";
import { masterText, ofType, startTestTurn, type TurnRun } from "@/test/support/agent/harness";
import { DEMO_PROMPTS } from "./prompts";
import { chatAnswer } from "./system-replies";
import { dataOf } from "@/test/support/turn/agent-data";

/**
 * The prompts offered to newcomers (home page, the demo's help, the README) are one list,
 * and each does what its line says, on a copy of the sample workspace people actually see.
 */
let workspace: string;
beforeAll(() => {
  workspace = mkdtempSync(join(tmpdir(), "delegate-demo-prompts-"));
  cpSync(resolve("workspace"), workspace, { recursive: true });
});
afterAll(() => rmSync(workspace, { recursive: true, force: true }));

function start(prompt: string, pace: { chunkDelayMs: number; replyDelayMs?: number } = { chunkDelayMs: 0 }): TurnRun {
  return startTestTurn(
    { model: createDemoModel(pace), workspaceDir: workspace, tools: createWorkspaceTools(), definitions: [...BUILTIN_DEFINITIONS] },
    prompt,
  );
}

/** Approves the first approval asked for (only the typo fix asks). */
async function approveWhenAsked(run: TurnRun): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const asked = dataOf(run.events, "approval").find((e) => e.approval.state === "pending");
    if (asked) {
      run.handle.decide!(asked.callId, asked.runId, { approve: true, by: "u1" });
      return;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** Each listed prompt's promised shape: [agent, depth] per subagent, in start order. */
const SHAPES: Record<string, [string, number][]> = {
  "Investigate the open bugs and the release plan": [
    ["explore", 1],
    ["explore", 1],
  ],
  "Compare the harmonics, constituents, datums, extremes and stations modules": Array.from(
    { length: 5 },
    () => ["explore", 1] as [string, number],
  ),
  "Deep dive into the tide predictor and the datum conversion": [
    ["general", 1],
    ["explore", 2],
    ["explore", 2],
  ],
  "Fix the typo in CONTRIBUTING.md": [
    ["general", 1],
    ["general", 2],
  ],
  hello: [],
};

describe("the demo prompts offered to newcomers", () => {
  it("the README and the demo's help offer exactly the listed prompts, each with what it does", () => {
    const readme = readFileSync(resolve("README.md"), "utf8");
    const help = chatAnswer("hello");
    for (const { prompt, does } of DEMO_PROMPTS) {
      expect(readme, prompt).toContain(`*"${prompt}"*`);
      expect(help, prompt).toContain(`| \`${prompt}\` | ${does} |`);
    }
    // Nothing else is offered as a prompt to try: no stale example left behind.
    expect(help.match(/^\| `[^`]+` \|/gm)).toHaveLength(DEMO_PROMPTS.length);
    expect(readme.match(/^- \*"[^"]+"\*/gm)).toHaveLength(DEMO_PROMPTS.length);
    expect(help).not.toContain("npm start");
  });

  it("every listed prompt has its shape checked below", () => {
    expect(Object.keys(SHAPES).sort()).toEqual(DEMO_PROMPTS.map((p) => p.prompt).sort());
  });

  for (const { prompt, does } of DEMO_PROMPTS) {
    it(`"${prompt}": ${does}`, async () => {
      const run = start(prompt);
      if (prompt.startsWith("Fix")) void approveWhenAsked(run);
      const result = await run.result;
      expect(result.status).toBe("completed");
      const started = ofType(run.events, "subagent_started");
      expect(started.map((s) => [s.name, s.depth])).toEqual(SHAPES[prompt]);
      const answer = masterText(result.turn);
      // The answer never names a run by its internal id.
      for (const s of started) expect(answer).not.toContain(s.runId);
      if (started.length === 0) expect(answer).toContain("offline demo model");
      else expect(answer).toMatch(new RegExp(`The ${started[0]!.name} agent on \\*`));
    });
  }

  it("the five modules run at once, each reading its own module's source", async () => {
    const run = start("Compare the harmonics, constituents, datums, extremes and stations modules");
    const result = await run.result;
    const started = ofType(run.events, "subagent_started");
    const firstEnd = run.events.findIndex((e) => e.type === "subagent_completed");
    expect(started.every((s) => run.events.indexOf(s) < firstEnd)).toBe(true);
    const reads = ofType(run.events, "subagent_data").flatMap((e) =>
      e.data.kind === "tool_call" && e.data.name === "file_read" ? [JSON.parse(e.data.parameters).path] : [],
    );
    expect(reads.sort()).toEqual(["constituents", "datums", "extremes", "harmonics", "stations"].map((m) => `src/tidepool/${m}.py`));
    const answer = masterText(result.turn);
    expect(answer).toContain("To compare them, I'm sending an `explore` subagent to each of the 5 at once.");
    expect(answer).toContain(
      "- The explore agent on *the datums module* found `src/tidepool/datums.py` (32 lines): “Converting heights between tidal datums.” It defines `offset`, `convert`; it uses `stations`.",
    );
    expect(answer).toContain("Status: 5 Completed.");
    // What only a reader of all five answers can say.
    expect(answer).toContain(
      "**Compared:** `stations` is the largest (68 lines) and `extremes` the smallest (31); `stations` is the one the others lean on (used by `harmonics` and `datums`).",
    );
    // Short: what it is doing, a lead, a line per subagent, the comparison, the outcome.
    expect(answer.split("\n").filter((l) => l.trim())).toHaveLength(9);
  });

  it("at the app's default pace the parallel prompts last 10-20 s, slow enough to watch (run at a tenth of it); at the tests' pace, about a second at most", async () => {
    const env = parseEnv({});
    // At the tests' pace first (it also warms up the code paths the timed runs take).
    const started = performance.now();
    expect((await start(DEMO_PROMPTS[1].prompt).result).status).toBe("completed");
    expect(performance.now() - started).toBeLessThan(1_500);
    // Every pause scales with the two settings, so a tenth of each takes a tenth of the time.
    const atTenth = async (prompt: string) => {
      const begun = performance.now();
      const result = await start(prompt, { chunkDelayMs: env.DEMO_CHUNK_DELAY_MS / 10, replyDelayMs: env.DEMO_REPLY_DELAY_MS / 10 }).result;
      expect(result.status).toBe("completed");
      return (performance.now() - begun) * 10;
    };
    for (const prompt of [DEMO_PROMPTS[0].prompt, DEMO_PROMPTS[1].prompt]) {
      const simulated = await atTenth(prompt);
      // Timers never fire early: the lower bound is exact. Late timers (a busy machine, 4 ms
      // chunks) only lengthen a run, so the upper bound leaves them a quarter more.
      expect(simulated, prompt).toBeGreaterThanOrEqual(10_000);
      expect(simulated, prompt).toBeLessThanOrEqual(25_000);
    }
  });
});
