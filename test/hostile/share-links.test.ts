import { io as connect, type Socket } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  SHARE_NAMESPACE,
  shareCommandSchemas,
  type Ack,
  type ShareClientToServerEvents,
  type ShareServerToClientEvents,
} from "@/lib/contracts";
import { expand, label, loadCorpus, type Vars } from "./corpus";
import { checkHttpReply, sendHttpCase, type HttpCase } from "./http-cases";
import { prototypePolluted, startHostileServer, type HostileServer } from "./hostile-server";

/**
 * Share links under hostile requests, from test-data/hostile/share-links.json: share
 * management by a stranger gets the answer a missing chat gets; bad, forged, revoked and
 * expired tokens one not_found; a share socket refuses every command but its two reads.
 * After all of it, the bystander's link still works and nobody else's chat was touched.
 */
type ShareCase =
  | ({ kind: "http" } & HttpCase)
  | {
      kind: "socket";
      id: string;
      note?: string;
      token: unknown;
      command?: string;
      input?: unknown;
      expect: { handshake?: string; ack?: { ok: boolean; code?: string; messageMatches?: string } };
    };
type ShareClient = Socket<ShareServerToClientEvents, ShareClientToServerEvents>;

const corpus = loadCorpus<ShareCase>("share-links.json");
let server: HostileServer;
let vars: Vars;
const sockets: ShareClient[] = [];

beforeAll(async () => {
  server = await startHostileServer("hostile_share");
  const shares = server.harness.app.shares!;
  const foreignOwner = (await server.harness.models.Session.findById(server.vars.foreign).lean<{ ownerId: string }>())!.ownerId;
  const link = (options: { expiresIn?: "1d" | "never" } = {}) =>
    shares.create(foreignOwner, server.vars.foreign, {
      expiresIn: options.expiresIn ?? "never",
      inspector: false,
      public: false,
      names: false,
    });
  const token = (path: string) => path.slice("/s/".length);
  const live = await link();
  const revoked = await link();
  await shares.revoke(foreignOwner, server.vars.foreign, revoked.link.linkId);
  const expired = await link({ expiresIn: "1d" });
  await server.harness.models.ShareLink.updateOne({ linkId: expired.link.linkId }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
  vars = {
    ...server.vars,
    foreignLink: live.link.linkId,
    shareToken: token(live.path),
    revokedToken: token(revoked.path),
    expiredToken: token(expired.path),
  };
});
afterAll(async () => {
  sockets.forEach((s) => s.disconnect());
  await server?.close();
});

function open(token: unknown): Promise<{ socket: ShareClient } | { refused: string }> {
  const socket: ShareClient = connect(`${server.harness.baseUrl}${SHARE_NAMESPACE}`, {
    auth: { token },
    transports: ["websocket"],
    extraHeaders: { cookie: server.attackerCookie },
    reconnection: false,
    forceNew: true,
  });
  sockets.push(socket);
  return new Promise((resolve) => {
    socket.once("connect", () => resolve({ socket }));
    socket.once("connect_error", (error) => resolve({ refused: error.message }));
  });
}

describe("the share corpus", () => {
  it("covers both share reads and has stranger, token and command cases", () => {
    const commands = new Set(corpus.cases.map((c) => ("command" in c ? c.command : undefined)));
    for (const name of Object.keys(shareCommandSchemas)) expect(commands, name).toContain(name);
    expect(corpus.cases.filter((c) => c.id.includes("foreign")).length).toBeGreaterThanOrEqual(4);
    expect(corpus.cases.filter((c) => c.kind === "socket" && c.expect.ack?.code === "unauthorized").length).toBeGreaterThanOrEqual(10);
  });
});

describe("hostile share requests", () => {
  it.each(corpus.cases.map((c) => ({ name: label(c), c })))("$name", async ({ c }) => {
    if (c.kind === "http") {
      checkHttpReply(c, await sendHttpCase(server.harness.baseUrl, server.attackerCookie, c, vars));
      return;
    }
    const opened = await open(expand(c.token, vars));
    if (c.expect.handshake) {
      expect(opened).toEqual({ refused: c.expect.handshake });
      return;
    }
    if (!("socket" in opened)) throw new Error(`${c.id}: refused: ${opened.refused}`);
    const ack = await new Promise<Ack<unknown>>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${c.id}: no answer`)), 10_000);
      (opened.socket.emit as unknown as (n: string, i: unknown, cb: (a: Ack<unknown>) => void) => void)(
        c.command!,
        expand(c.input, vars),
        (a) => {
          clearTimeout(timer);
          resolve(a);
        },
      );
    });
    const want = c.expect.ack!;
    expect(ack.ok, `${c.id}: ${JSON.stringify(ack).slice(0, 300)}`).toBe(want.ok);
    if (!ack.ok) {
      expect(ack.code).not.toBe("internal");
      if (want.code) expect(ack.code).toBe(want.code);
      if (want.messageMatches) expect(ack.message).toMatch(new RegExp(want.messageMatches));
      expect(ack.message.length).toBeLessThanOrEqual(300);
    }
    opened.socket.disconnect();
  });

  it("leaves the bystander's chat and link as they were, and pollutes no prototype", async () => {
    await server.bystanderServed();
    expect(await server.harness.models.Turn.countDocuments({ sessionId: server.vars.foreign })).toBe(0);
    const opened = await open(vars.shareToken);
    expect("socket" in opened).toBe(true);
    const links = await server.harness.models.ShareLink.countDocuments({ sessionId: server.vars.foreign, revokedAt: null });
    expect(links).toBe(2);
    expect(prototypePolluted()).toEqual([]);
  });
});
