import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ModelError, type ModelRequest } from "@/lib/model/types";
import { MASTER_PROMPT_MARKER } from "./prompts";
import { startTestTurn, tempWorkspace } from "@/test/support/agent/harness";
import { lastUser, scriptedModel, systemOf, toolResults, type ScriptedReply } from "@/test/support/agent/scripted-model";

/**
 * Invariant 1 on the live path, over random delegation scenarios: the requests the master's
 * model receives — during the turn, and on the next turn rebuilt from what was stored —
 * never contain a subagent's thinking, nested tool calls/results, stats or envelope.
 * Internals carry the marker; what a subagent answers never does.
 */

const MARK = "ZZLIVEINTERNAL";
let ws: Awaited<ReturnType<typeof tempWorkspace>>;
beforeAll(async () => {
  ws = await tempWorkspace({ "secret.txt": `${MARK}_FILE contents only the subagent reads` });
});
afterAll(() => ws.cleanup());

const childPlan = fc.record({
  thinks: fc.boolean(),
  readsFile: fc.boolean(),
  spawnsGrandchild: fc.boolean(),
  fails: fc.boolean(),
});

describe("clean context on the live path (property)", () => {
  it("keeps every master request free of subagent internals, live and on the next turn", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(childPlan, { minLength: 1, maxLength: 4 }), fc.boolean(), async (plans, grandchildFails) => {
        const isMaster = (r: ModelRequest) => systemOf(r).startsWith(MASTER_PROMPT_MARKER);
        const model = scriptedModel((req): ScriptedReply => {
          const results = toolResults(req.messages);
          if (isMaster(req)) {
            if (lastUser(req.messages) === "follow up") return { text: "Following up." };
            if (results.length === 0) {
              return {
                toolCalls: plans.map((p, i) => ({
                  id: `m${i}`,
                  name: "subagent",
                  args: { agent: p.spawnsGrandchild ? "general" : "explore", task: `task ${i}` },
                })),
              };
            }
            return { text: "Summary of the results." };
          }
          const depth = Number(/Depth: (\d)/.exec(systemOf(req))?.[1]);
          const index = Number(/task (\d)/.exec(lastUser(req.messages))?.[1] ?? 0);
          const plan = plans[index] ?? plans[0]!;
          if (depth === 2) {
            return grandchildFails
              ? { thinking: `${MARK}_GRANDTHINK`, error: new ModelError("server_error", "The provider failed.") }
              : { thinking: `${MARK}_GRANDTHINK`, text: "grandchild answer" };
          }
          if (results.length === 0) {
            const calls = [
              ...(plan.readsFile ? [{ id: `${MARK}_CALLID_${index}`, name: "read_note", args: { name: "secret" } }] : []),
              ...(plan.spawnsGrandchild
                ? [{ id: `g${index}`, name: "subagent", args: { agent: "explore", task: `${MARK}_GRANDTASK` } }]
                : []),
            ];
            if (calls.length)
              return {
                thinking: plan.thinks ? `${MARK}_THINK` : undefined,
                toolCalls: calls,
                usage: { inputTokens: 7777, outputTokens: 1 },
              };
          }
          if (plan.fails) {
            return {
              thinking: plan.thinks ? `${MARK}_THINK3` : undefined,
              text: "partial answer",
              error: new ModelError("server_error", "The provider failed."),
            };
          }
          return { thinking: plan.thinks ? `${MARK}_THINK2` : undefined, text: `answer ${index}` };
        });
        const first = startTestTurn({ model, workspaceDir: ws.dir }, "investigate");
        const firstResult = await first.result;
        expect(firstResult.status).toBe("completed");
        const history = [firstResult.turn];
        if (plans.some((p) => p.thinks || p.readsFile || p.spawnsGrandchild)) {
          expect(JSON.stringify(history)).toContain(MARK); // stored for audit…
        }
        const second = startTestTurn({ model, workspaceDir: ws.dir }, "follow up", history);
        expect((await second.result).status).toBe("completed");

        const masterRequests = model.requests.filter(isMaster);
        expect(masterRequests.length).toBeGreaterThanOrEqual(3);
        for (const request of masterRequests) {
          const text = JSON.stringify(request.messages); // …but never sent to the master.
          expect(text).not.toContain(MARK);
          expect(text).not.toMatch(/runtimeMs|"inputTokens|\\"success\\"|7777/);
        }
      }),
      { numRuns: 30 },
    );
  });
});
