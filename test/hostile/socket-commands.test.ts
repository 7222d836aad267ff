import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { commandSchemas } from "@/lib/contracts";
import type { TestClient } from "@/test/support/server/app-harness";
import { expand, label, loadCorpus } from "./corpus";
import { prototypePolluted, startHostileServer, type HostileServer } from "./hostile-server";
import { checkOutcome, sendCase, type SocketCase } from "./socket-cases";

/**
 * Every socket command under hostile input, from test-data/hostile/socket-commands.json:
 * each case gets the outcome it names (a clear error, never `internal`, or acceptance
 * with what the sidebar then shows), and after every batch another person is still
 * served.
 */
const corpus = loadCorpus<SocketCase>("socket-commands.json");
const cases = corpus.cases;
const BATCH = 20;
const batches = Array.from({ length: Math.ceil(cases.length / BATCH) }, (_, i) => cases.slice(i * BATCH, (i + 1) * BATCH));

let server: HostileServer;
beforeAll(async () => {
  // The corpus sends hundreds of commands as one person; the person's command budget is
  // the flood corpus's subject (flood.test.ts), so here it is out of the way.
  server = await startHostileServer("hostile_socket", { personRateLimit: { burst: 100_000, perSecond: 100_000 } });
});
afterAll(async () => {
  await server?.close();
});

describe("the corpus", () => {
  it("covers every command in commandSchemas", () => {
    const named = new Set(corpus.cases.map((c) => c.command));
    for (const command of Object.keys(commandSchemas)) expect(named, command).toContain(command);
  });
});

describe.each(batches.map((batch, i) => ({ i, batch })))("hostile socket batch $i", ({ batch }) => {
  let socket: TestClient;
  // A fresh connection per batch: the per-connection rate limit (30 at once) stays out of the way.
  const connected = async () => {
    if (!socket?.connected) socket = await server.harness.client(server.attackerCookie);
    return socket;
  };
  // Closed with its batch: one person's open connections are capped (20), and there are more batches than that.
  afterAll(() => {
    socket?.disconnect();
  });

  it.each(batch.map((c) => ({ name: label(c), c })))("$name", async ({ c }) => {
    const vars = { ...server.vars, fresh: JSON.stringify(c.input ?? null).includes("{fresh}") ? await server.freshSession() : "" };
    const outcome = await sendCase(await connected(), c, vars);
    const data = checkOutcome(c, outcome) as { sessionId?: string } | undefined;
    if (c.expect.listedTitle !== undefined) {
      const listed = (await server.listed()).find((s) => s.sessionId === data?.sessionId);
      expect(listed?.title).toBe(expand(c.expect.listedTitle));
    }
  });

  it("another person is still served, and no prototype was polluted", async () => {
    await server.bystanderServed();
    expect(prototypePolluted()).toEqual([]);
  });
});
