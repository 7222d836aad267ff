import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { remoteAgentRefSchema } from "@/lib/remote-agents/remote-ref";
import { runRemoteAgent } from "@/lib/remote-agents/run-remote";
import { RemoteAgentError } from "@/lib/remote-agents/transport";
import { createA2ATransport } from "@/server/remote-agents/a2a-transport";
import { startTestA2AAgent, type TestA2AAgent } from "@/test/support/a2a/test-agent";

/**
 * Hostile remote agents: forged cards, artifacts past every bound, endless streams, a
 * message too long to show, and a card that redirects to a private address. Each ends the
 * run with a RemoteAgentError a person can read (or, for the long message, cuts it), in
 * time, and cancels the task it gave up on; none throws anything else.
 */

const ref = (cardUrl: string) => remoteAgentRefSchema.parse({ cardUrl });
let agent: TestA2AAgent;
const forged: TestA2AAgent[] = [];
let redirector: http.Server;
let redirectUrl: string;

beforeAll(async () => {
  agent = await startTestA2AAgent();
  redirector = http.createServer((_req, res) =>
    res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/card.json" }).end(),
  );
  await new Promise<void>((resolve) => redirector.listen(0, "127.0.0.1", resolve));
  redirectUrl = `http://127.0.0.1:${(redirector.address() as AddressInfo).port}/.well-known/agent-card.json`;
});
afterAll(async () => {
  await agent?.close();
  for (const f of forged) await f.close();
  await new Promise<void>((resolve) => (redirector ? redirector.close(() => resolve()) : resolve()));
});

async function run(cardUrl: string, text: string, options: { trusted?: boolean; allowedHosts?: string[] } = {}) {
  const steps: string[] = [];
  const transport = createA2ATransport({ allowedHosts: options.allowedHosts ?? [] });
  const result = await runRemoteAgent({
    transport,
    ref: ref(cardUrl),
    trusted: options.trusted ?? true,
    agent: "warehouse",
    text,
    signal: AbortSignal.timeout(30_000),
    idleMs: 10_000,
    out: {
      stepStart: (step) => void (steps[step] = ""),
      text: (step, _offset, chunk) => void (steps[step] += chunk),
      stepEnd: () => undefined,
    },
  }).then(
    (answer) => ({ answer }),
    (error: unknown) => ({ error }),
  );
  return { ...result, steps };
}

const forgedCards: [string, (origin: string) => unknown, RegExp][] = [
  ["a card that is not an object", () => "I am an agent", /card/i],
  [
    "an endpoint that is a javascript: URL",
    () => ({
      name: "x",
      description: "d",
      version: "1",
      supportedInterfaces: [{ url: "javascript:alert(1)", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
      capabilities: { streaming: true },
      skills: [],
    }),
    /card/i,
  ],
  [
    "a name of 100 000 characters",
    (o) => ({
      name: "n".repeat(100_000),
      description: "d",
      version: "1",
      supportedInterfaces: [{ url: `${o}/a2a/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
      capabilities: { streaming: true },
      skills: [],
    }),
    /card/i,
  ],
  ["no endpoint at all", () => ({ name: "x", description: "d", version: "1", capabilities: { streaming: true }, skills: [] }), /card/i],
];

describe("hostile remote agents", () => {
  it.each(forgedCards)("refuses %s, with an error that names the card", async (_name, card, message) => {
    const f = await startTestA2AAgent({ cardOverride: card("http://127.0.0.1:9") });
    forged.push(f);
    const { error } = (await run(f.cardUrl, "stream it")) as { error: unknown };
    expect(error).toBeInstanceOf(RemoteAgentError);
    expect((error as Error).message).toMatch(message);
    expect(f.messages).toEqual([]);
  });

  it("gives up on artifacts past 200 000 characters", async () => {
    const { error, steps } = (await run(agent.cardUrl, "huge dump please")) as { error: Error; steps: string[] };
    expect(error).toBeInstanceOf(RemoteAgentError);
    expect(error.message).toBe("The remote agent sent more than 200000 characters of artifacts.");
    expect(steps.join("").length).toBeLessThanOrEqual(200_000 + 100);
  });

  it("gives up on an endless stream after 500 steps, and cancels the task", async () => {
    const before = agent.cancels.length;
    const { error, steps } = (await run(agent.cardUrl, "endless updates")) as { error: Error; steps: string[] };
    expect(error).toBeInstanceOf(RemoteAgentError);
    expect(error.message).toBe("The remote agent sent more than 500 updates for one task.");
    expect(steps).toHaveLength(500);
    await expect.poll(() => agent.cancels.length, { timeout: 15_000 }).toBeGreaterThan(before);
  });

  it("cuts a message too long to show, and still answers", async () => {
    const { answer, steps } = (await run(agent.cardUrl, "shout it")) as { answer: string; steps: string[] };
    expect(answer).toBe("Quiet now.");
    expect(steps[0]).toBe(`${"A".repeat(8_000)}\n\n[… cut: 50000 characters]`);
  });

  it("refuses a card that redirects to a private address, even from a host it may reach", async () => {
    const { error } = (await run(redirectUrl, "stream it", { trusted: false, allowedHosts: ["127.0.0.1"] })) as { error: Error };
    expect(error).toBeInstanceOf(RemoteAgentError);
    expect(error.message).toMatch(/169\.254\.169\.254|private|not allowed|refused/i);
  });

  it("refuses a card on a private address for an agent made in the app", async () => {
    const { error } = (await run(agent.cardUrl, "stream it", { trusted: false })) as { error: Error };
    expect(error).toBeInstanceOf(RemoteAgentError);
    expect(error.message).toMatch(/private|not allowed|refused/i);
  });
});
