import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Ack } from "@/lib/contracts";
import { request } from "@/test/support/server/app-harness";
import { expand, label, loadCorpus } from "./corpus";
import { startHostileServer, type HostileServer } from "./hostile-server";

/**
 * One person floods the server (test-data/hostile/socket-flood.json), from one connection
 * or from several at once: the excess is refused with `rate_limited` and a sentence,
 * nothing goes unanswered, and another person is served while the flood is being answered.
 * The cases run in order against one attacker, whose budget is shared and kept.
 */
interface FloodCase {
  id: string;
  note?: string;
  command: string;
  input: unknown;
  count: number;
  /** Connections of the same person, each sending `count` (default 1). */
  connections?: number;
  /** Waits this long first, so the earlier cases' spending has refilled. */
  refillFirstMs?: number;
  expect: {
    servedAtLeast: number;
    servedAtMost: number;
    /**
     * The person's token bucket, checked over this case and the one before together: the
     * two floods serve at most `burst` plus `perSecond` over the time from the first's
     * start to the second's end (however slow the machine, this holds; a budget that
     * reconnecting refilled breaks it by a whole burst).
     */
    bucketOverPrevious?: { burst: number; perSecond: number };
    servedCode?: string;
    limitedMessageMatches: string;
    createdEqualsServed?: boolean;
  };
}

const corpus = loadCorpus<FloodCase>("socket-flood.json");

let server: HostileServer;
beforeAll(async () => {
  server = await startHostileServer("hostile_flood");
});
afterAll(async () => {
  await server?.close();
});

/** The previous case's flood: when it started and how much of it was served. */
let previous = { startedAt: 0, served: 0 };

describe("a flood from one person", () => {
  it.each(corpus.cases.map((c) => ({ name: label(c), c })))("$name", async ({ c }) => {
    if (c.refillFirstMs) await new Promise((resolve) => setTimeout(resolve, c.refillFirstMs));
    const flooders = await Promise.all(Array.from({ length: c.connections ?? 1 }, () => server.harness.client(server.attackerCookie)));
    try {
      // Listing spends the attacker's budget too: only the cases that count creations list.
      const before = c.expect.createdEqualsServed ? (await server.listed()).length : 0;
      const input = expand(c.input, server.vars);
      const floodStarted = Date.now();
      const acks = flooders.flatMap((flooder) => {
        const emit = flooder.emit as unknown as (name: string, input: unknown, ack: (a: Ack<unknown>) => void) => void;
        return Array.from({ length: c.count }, () => new Promise<Ack<unknown>>((resolve) => emit.call(flooder, c.command, input, resolve)));
      });
      // Another person asks while the flood is in flight.
      const bystanderStarted = Date.now();
      const bystander = await request(server.bystander, "session:list", {});
      const bystanderMs = Date.now() - bystanderStarted;

      const all = await Promise.all(acks);
      // Every command is answered, each either served as the case expects or refused by the
      // rate limit with its sentence; nothing else (no internal error, no other code).
      const isServed = (a: Ack<unknown>) => (c.expect.servedCode ? !a.ok && a.code === c.expect.servedCode : a.ok);
      const isLimited = (a: Ack<unknown>) =>
        !a.ok && a.code === "rate_limited" && new RegExp(c.expect.limitedMessageMatches).test(a.message);
      expect(all).toHaveLength(c.count * flooders.length);
      expect(all.filter((a) => !isServed(a) && !isLimited(a))).toEqual([]);
      const served = all.filter(isServed);
      expect(served.length).toBeGreaterThanOrEqual(c.expect.servedAtLeast);
      expect(served.length).toBeLessThanOrEqual(c.expect.servedAtMost);
      if (c.expect.bucketOverPrevious) {
        const { burst, perSecond } = c.expect.bucketOverPrevious;
        const window = (Date.now() - previous.startedAt) / 1000;
        expect(previous.served + served.length).toBeLessThanOrEqual(burst + Math.ceil(perSecond * window) + 1);
      }
      previous = { startedAt: floodStarted, served: served.length };
      if (c.expect.createdEqualsServed) expect((await server.listed()).length - before).toBe(served.length);
      expect(bystander.ok).toBe(true);
      // Served beside the flood, not after its backlog; the bound leaves room for a busy
      // machine (at load 15, forty 1 MB prompts kept a bystander waiting 2.4–3.4 s).
      expect(bystanderMs).toBeLessThan(5_000);
    } finally {
      // Even when a case fails: its sockets would count against the next case.
      for (const flooder of flooders) flooder.disconnect();
    }
  });
});
