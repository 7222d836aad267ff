import { createOpenAIModel } from "@/lib/model/openai-adapter";
import { scriptedReply, startScriptedOpenAIServer, type ScriptedOpenAIServer } from "@/test/support/model/scripted-openai-server";
import type { SessionSummary } from "@/lib/contracts";
import type { AppOptions } from "@/server/app";
import { request, runtimeWith, startHarness, type Harness, type TestClient } from "@/test/support/server/app-harness";

/**
 * The real server for hostile-input tests: real HTTP and Socket.IO on port 0, the real
 * database server, the real agent runtime over the real OpenAI adapter talking to a
 * scripted local model (accepted prompts start real turns). Two people: the attacker,
 * who owns `session`, and a bystander, who owns `foreign` and must keep being served.
 */
export interface HostileServer {
  harness: Harness;
  model: ScriptedOpenAIServer;
  attackerCookie: string;
  bystander: TestClient;
  /** Placeholder values the corpus refers to. */
  vars: { session: string; foreign: string; hugeKey: string; foreignAttachment: string };
  /** A new empty chat of the attacker's, over HTTP (no socket rate-limit tokens spent). */
  freshSession(): Promise<string>;
  /** The attacker's sessions as the sidebar lists them (over HTTP). */
  listed(): Promise<SessionSummary[]>;
  /** Fails the calling test unless the bystander's session list still answers. */
  bystanderServed(): Promise<void>;
  close(): Promise<void>;
}

export async function startHostileServer(label: string, options: Pick<AppOptions, "personRateLimit"> = {}): Promise<HostileServer> {
  const model = await startScriptedOpenAIServer(() => scriptedReply({ text: ["Noted."], usage: { promptTokens: 5, completionTokens: 2 } }));
  const chatModel = createOpenAIModel({ baseURL: model.url, apiKey: "test", model: "scripted", timeoutMs: 30_000, maxRetries: 0 });
  const harness = await startHarness(label, {
    runner: runtimeWith(chatModel),
    notify: { vapid: { subject: "mailto:hostile@example.com" } },
    ...options,
  });
  const attackerCookie = await harness.newCookie();
  const bystanderCookie = await harness.newCookie();
  const bystander = await harness.client(bystanderCookie);
  const foreign = await request(bystander, "session:create", { title: "Bystander's chat" });
  if (!foreign.ok) throw new Error(foreign.message);
  const bystanderId = (await harness.models.Session.findById(foreign.data.sessionId).lean<{ ownerId: string }>())!.ownerId;
  const foreignAttachment = await harness.store.attachments.put(foreign.data.sessionId, bystanderId, {
    name: "secret.txt",
    bytes: Buffer.from("the bystander's file"),
  });

  /** One command on a socket of its own, so the corpus's own sockets keep their rate budget. */
  const ask = async <T>(name: "session:create" | "session:list"): Promise<T> => {
    const socket = await harness.client(attackerCookie);
    try {
      const answer = (await request(socket, name, {})) as { ok: true; data: T } | { ok: false; message: string };
      if (!answer.ok) throw new Error(answer.message);
      return answer.data;
    } finally {
      socket.disconnect();
    }
  };
  const freshSession = async () => (await ask<SessionSummary>("session:create")).sessionId;
  const session = await freshSession();

  return {
    harness,
    model,
    attackerCookie,
    bystander,
    vars: { session, foreign: foreign.data.sessionId, hugeKey: "k".repeat(100_000), foreignAttachment: foreignAttachment.attachmentId },
    freshSession,
    listed: () => ask<SessionSummary[]>("session:list"),
    async bystanderServed() {
      const started = Date.now();
      const ack = await request(bystander, "session:list", {});
      if (!ack.ok || !ack.data.some((s) => s.sessionId === foreign.data.sessionId)) {
        throw new Error(`the bystander was not served: ${JSON.stringify(ack).slice(0, 200)}`);
      }
      // Served promptly, not after the attacker's backlog.
      if (Date.now() - started > 5_000) throw new Error(`the bystander waited ${Date.now() - started} ms`);
    },
    async close() {
      await harness.close();
      await model.close();
    },
  };
}

/** Prototype pollution shows up as a property every plain object inherits. */
export function prototypePolluted(): string[] {
  const probe = {} as Record<string, unknown>;
  return ["polluted", "isAdmin"].filter((key) => probe[key] !== undefined);
}
