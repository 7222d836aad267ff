import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Ack } from "@/lib/contracts";
import { request } from "@/test/support/server/app-harness";
import { expand, label, loadCorpus } from "./corpus";
import { startHostileServer, type HostileServer } from "./hostile-server";

/**
 * One connection floods the server (test-data/hostile/socket-flood.json): the excess is
 * refused with `rate_limited` and a sentence, nothing goes unanswered, and a second
 * connection — another person — is served while the flood is being answered.
 */
interface FloodCase {
  id: string;
  note?: string;
  command: string;
  input: unknown;
  count: number;
  expect: { servedAtLeast: number; servedAtMost: number; servedCode?: string; limitedMessageMatches: string; createdEqualsServed?: boolean };
}

const corpus = loadCorpus<FloodCase>("socket-flood.json");

let server: HostileServer;
beforeAll(async () => {
  server = await startHostileServer("hostile_flood");
});
afterAll(async () => {
  await server?.close();
});

describe("a flood from one connection", () => {
  it.each(corpus.cases.map((c) => ({ name: label(c), c })))("$name", async ({ c }) => {
    const flooder = await server.harness.client(server.attackerCookie);
    const before = (await server.listed()).length;
    const input = expand(c.input, server.vars);
    const emit = flooder.emit as unknown as (name: string, input: unknown, ack: (a: Ack<unknown>) => void) => void;
    const acks = Array.from(
      { length: c.count },
      () => new Promise<Ack<unknown>>((resolve) => emit.call(flooder, c.command, input, resolve)),
    );
    // Another person asks while the flood is in flight.
    const bystanderStarted = Date.now();
    const bystander = await request(server.bystander, "session:list", {});
    const bystanderMs = Date.now() - bystanderStarted;

    const all = await Promise.all(acks);
    const limited = all.filter((a) => !a.ok && a.code === "rate_limited");
    const served = all.filter((a) => a.ok || a.code !== "rate_limited");
    expect(all).toHaveLength(c.count);
    expect(served.length).toBeGreaterThanOrEqual(c.expect.servedAtLeast);
    expect(served.length).toBeLessThanOrEqual(c.expect.servedAtMost);
    expect(limited.length).toBe(c.count - served.length);
    for (const a of limited) expect(!a.ok && a.message).toMatch(new RegExp(c.expect.limitedMessageMatches));
    for (const a of served) {
      if (c.expect.servedCode) expect(a).toMatchObject({ ok: false, code: c.expect.servedCode });
      else expect(a.ok).toBe(true);
    }
    if (c.expect.createdEqualsServed) expect((await server.listed()).length - before).toBe(served.length);
    expect(bystander.ok).toBe(true);
    expect(bystanderMs).toBeLessThan(2_000);
    flooder.disconnect();
  });
});
