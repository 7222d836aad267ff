import { afterAll, beforeAll, it } from "vitest";
import { createOpenAIModel } from "@/lib/model/openai-adapter";
import { scriptedReply, startScriptedOpenAIServer, type ScriptedOpenAIServer } from "@/lib/model/testing/scripted-openai-server";
import { request, runtimeWith, startHarness, type Harness, type TestClient } from "@/server/testing/app-harness";
import { expand } from "./corpus";

let model: ScriptedOpenAIServer; let h: Harness;
beforeAll(async () => {
  model = await startScriptedOpenAIServer(() => scriptedReply({ text: ["ok"] }));
  h = await startHarness("probe", { runner: runtimeWith(createOpenAIModel({ baseURL: model.url, apiKey: "t", model: "s", timeoutMs: 10000, maxRetries: 0 })) });
});
afterAll(async () => { await h.close(); await model.close(); });

function raw(s: TestClient, text: string): Promise<string> {
  return new Promise((resolve) => {
    const eng = (s as any).io.engine;
    const seen: string[] = [];
    const on = (p: any) => { if (p.type === "message") seen.push(String(p.data)); };
    eng.on("packet", on);
    s.once("disconnect", (r) => { resolve("disconnect:" + r + " " + seen.join("|")); });
    eng.write(text);
    setTimeout(() => { eng.off("packet", on); resolve("after500:" + seen.join("|")); }, 500);
  });
}

it("probe", async () => {
  const cookie = await h.newCookie();
  const log = (...a: unknown[]) => process.stdout.write(a.map((x) => typeof x === "string" ? x.slice(0,300) : JSON.stringify(x)?.slice(0, 300)).join(" ") + "\n");
  let s = await h.client(cookie);
  const deep = expand({ $nestText: 10000 }) as string;
  const deepA = expand({ $nestText: 10000, as: "array" }) as string;
  for (const p of ['2["disconnect"]', '2["connect"]', '2["error","x"]', '2["disconnecting","x"]', '2["newListener","x"]', '2[', '2{}', 'x', '2[1,2]', '2991["session:list",{}]', '2992["session:list"]', '2993["session:list",{},"extra"]', '51-["session:create",{"_placeholder":true,"num":0}]', '2994["session:create",{"_placeholder":true,"num":0}]',
    '2995["session:create",' + deep + ']', '2996["session:create",{"title":' + deepA + '}]', '2997["session:create",' + deepA + ']', '2998["session:join",{"sessionId":"abc","lastSeq":1e309}]', '2999["session:join",{"sessionId":"abc","lastSeq":NaN}]', '0{}', '1', '2', '3', '299', '2-1["session:list",{}]', '21e3["session:list",{}]', '2/admin,["session:list",{}]', '2/admin,5["session:list",{}]']) {
    if (!s.connected) s = await h.client(cookie);
    log(p.slice(0, 60), await raw(s, p));
  }
  s = await h.client(cookie);
  log("still", await request(s, "session:list", {}));
}, 60000);
