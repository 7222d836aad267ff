import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createDemoModel } from "@/lib/model/demo-model";
import { request, runtimeWith, startHarness, type Harness, type TestClient } from "@/test/support/server/app-harness";

/**
 * One person cannot starve the others: chats kept, turns running at once and open
 * sockets are capped per identity (small caps here), each refusal is a clear
 * `limit_reached`, and another person is served as usual meanwhile.
 */

let harness: Harness;
beforeAll(async () => {
  harness = await startHarness("person-limits", {
    runner: runtimeWith(createDemoModel({ chunkDelayMs: 40 })),
    personLimits: { chats: 3, runningTurns: 2, sockets: 4 },
  });
});
afterAll(async () => {
  await harness?.close();
});

async function create(socket: TestClient): Promise<string> {
  const ack = await request(socket, "session:create", {});
  if (!ack.ok) throw new Error(ack.message);
  return ack.data.sessionId;
}

describe("caps per person", () => {
  it("refuses a chat past the cap with limit_reached; someone else still creates", async () => {
    const socket = await harness.client(await harness.newCookie());
    for (let i = 0; i < 3; i++) await create(socket);
    expect(await request(socket, "session:create", {})).toMatchObject({
      ok: false,
      code: "limit_reached",
      message: expect.stringMatching(/3 chats/),
    });
    const other = await harness.client(await harness.newCookie());
    expect(await request(other, "session:create", {})).toMatchObject({ ok: true });
  });

  it("holds the chat cap exactly when one person creates many chats at once", async () => {
    // Two connections, thirty creates in flight: a count-then-create that interleaves lets
    // several through; the cap is 3.
    const cookie = await harness.newCookie();
    const sockets = [await harness.client(cookie), await harness.client(cookie)];
    const acks = await Promise.all(Array.from({ length: 30 }, (_, i) => request(sockets[i % 2]!, "session:create", {})));
    expect(acks.filter((a) => a.ok)).toHaveLength(3);
    expect(acks.filter((a) => !a.ok && a.code === "limit_reached")).toHaveLength(27);
    const listed = await request(sockets[0]!, "session:list", {});
    expect(listed.ok && listed.data).toHaveLength(3);
    for (const socket of sockets) socket.disconnect();
  });

  it("refuses a turn while the person's cap of running turns is reached, and serves others", async () => {
    const socket = await harness.client(await harness.newCookie());
    const chats = [await create(socket), await create(socket), await create(socket)];
    for (const sessionId of chats.slice(0, 2)) {
      expect(await request(socket, "turn:send", { sessionId, text: "Investigate the open bugs and the release plan" })).toMatchObject({
        ok: true,
      });
    }
    const third = await request(socket, "turn:send", { sessionId: chats[2], text: "hello" });
    expect(third).toMatchObject({ ok: false, code: "limit_reached", message: expect.stringMatching(/2 turns running/) });
    const other = await harness.client(await harness.newCookie());
    expect(await request(other, "turn:send", { sessionId: await create(other), text: "hello" })).toMatchObject({ ok: true });
  });

  it("refuses a socket past the cap at the handshake, and takes one again once a tab closes", async () => {
    const cookie = await harness.newCookie();
    const sockets = [];
    for (let i = 0; i < 4; i++) sockets.push(await harness.client(cookie));
    await expect(harness.client(cookie)).rejects.toThrow(/limit_reached/);
    await expect(harness.client(await harness.newCookie())).resolves.toBeDefined();
    sockets[0]!.disconnect();
    // The server sees the close a moment later: until then the cap still counts that tab.
    await expect(vi.waitFor(() => harness.client(cookie), { timeout: 10_000, interval: 20 })).resolves.toBeDefined();
  });
});
