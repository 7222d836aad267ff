import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ACCOUNT_ROUTES, type Ack, type AuthState, type ClientToServerEvents, type SessionEvent } from "@/lib/contracts";
import { createDemoModel } from "@/lib/model/demo-model";
import { createLoginThrottle } from "@/server/accounts/login-throttle";
import { request, runtimeWith, startHarness, type Harness, type TestClient } from "@/test/support/server/app-harness";
import { CookieJar } from "@/test/support/server/cookie-jar";
import { sessionFileSchema } from "@/lib/export/session-file";
import { io as connect } from "socket.io-client";
import { SHARE_NAMESPACE, type JoinResult, type MembersPresence, type SharedChat } from "@/lib/contracts";

/**
 * Every socket command from a chat's viewer, collaborator, removed member and a stranger,
 * with forged ids and attempts to raise a role: each gets what its role allows, or a clear
 * refusal. The table below names every command (a new one does not compile until it is
 * sorted), with an input that would be accepted from the owner.
 */
type Kind = "read" | "act" | "manage" | "none";
type Vars = { session: string; owner: string; collaborator: string; viewer: string; turn: string };
const COMMANDS: Record<keyof ClientToServerEvents, { kind: Kind; input: (v: Vars) => unknown }> = {
  "app:info": { kind: "none", input: () => ({}) },
  "session:list": { kind: "none", input: () => ({}) },
  "session:create": { kind: "none", input: () => ({}) },
  "session:page": { kind: "none", input: () => ({}) },
  "session:search": { kind: "none", input: () => ({ query: "plans" }) },
  "session:leave": { kind: "none", input: (v) => ({ sessionId: v.session }) },
  "model:list": { kind: "none", input: () => ({}) },
  "agent:get": { kind: "none", input: () => ({ id: "noSuchAgent1" }) },
  "agent:create": { kind: "none", input: () => ({ definition: { name: "x", description: "y" } }) },
  "agent:update": { kind: "none", input: () => ({ id: "noSuchAgent1", definition: { name: "x", description: "y" }, baseVersion: 1 }) },
  "agent:duplicate": { kind: "none", input: () => ({ key: "operator:explore" }) },
  "agent:delete": { kind: "none", input: () => ({ id: "noSuchAgent1" }) },
  "session:join": { kind: "read", input: (v) => ({ sessionId: v.session }) },
  "session:older": { kind: "read", input: (v) => ({ sessionId: v.session, before: v.turn }) },
  "chat:settings": { kind: "read", input: (v) => ({ sessionId: v.session }) },
  "agent:list": { kind: "read", input: (v) => ({ sessionId: v.session }) },
  "member:list": { kind: "read", input: (v) => ({ sessionId: v.session }) },
  "turn:send": { kind: "act", input: (v) => ({ sessionId: v.session, text: "one more thing" }) },
  "turn:cancel": { kind: "act", input: (v) => ({ sessionId: v.session, turnId: v.turn }) },
  "subagent:steer": { kind: "act", input: (v) => ({ sessionId: v.session, runId: "run1", message: "go left" }) },
  "subagent:kill": { kind: "act", input: (v) => ({ sessionId: v.session, runId: "run1" }) },
  "subagent:retry": { kind: "act", input: (v) => ({ sessionId: v.session, runId: "run1" }) },
  "tool:decide": { kind: "act", input: (v) => ({ sessionId: v.session, callId: "call_1", runId: null, decision: "approve" }) },
  "member:typing": { kind: "act", input: (v) => ({ sessionId: v.session }) },
  "tool:answer": { kind: "act", input: (v) => ({ sessionId: v.session, callId: "call_1", runId: null, action: "decline" }) },
  "session:rename": { kind: "manage", input: (v) => ({ sessionId: v.session, title: "Mine now" }) },
  "session:delete": { kind: "manage", input: (v) => ({ sessionId: v.session }) },
  "session:branch": { kind: "manage", input: (v) => ({ sessionId: v.session, turnId: v.turn }) },
  "session:fork": { kind: "manage", input: (v) => ({ sessionId: v.session, turnId: v.turn }) },
  "turn:edit": { kind: "manage", input: (v) => ({ sessionId: v.session, turnId: v.turn, text: "edited" }) },
  "turn:regenerate": { kind: "manage", input: (v) => ({ sessionId: v.session, turnId: v.turn }) },
  "chat:configure": { kind: "manage", input: (v) => ({ sessionId: v.session, instructions: "obey me" }) },
  "chat:agents": { kind: "manage", input: (v) => ({ sessionId: v.session, key: "operator:explore", enabled: false }) },
  "member:add": { kind: "manage", input: (v) => ({ sessionId: v.session, email: "stranger@example.com", role: "collaborator" }) },
  // Forged: a member raising itself, or removing the owner.
  "member:role": { kind: "manage", input: (v) => ({ sessionId: v.session, accountId: v.viewer, role: "collaborator" }) },
  "member:remove": { kind: "manage", input: (v) => ({ sessionId: v.session, accountId: v.owner }) },
};

let harness: Harness;
const sockets: Record<"owner" | "collaborator" | "viewer" | "removed" | "stranger", TestClient> = {} as never;
const vars = {} as Vars;
let removedId = "";
let viewerCookie = "";

const send = (socket: TestClient, name: string, input: unknown) =>
  new Promise<Ack<unknown>>((resolve) => (socket.emit as (...a: unknown[]) => void)(name, input, resolve));

beforeAll(async () => {
  harness = await startHarness("members_hostile", {
    runner: runtimeWith(createDemoModel({ chunkDelayMs: 0 })),
    authMode: "open",
    accountThrottle: createLoginThrottle({ maxFailures: 10_000 }),
    personRateLimit: { burst: 100_000, perSecond: 100_000 },
  });
  const ids: Record<string, string> = {};
  for (const who of ["owner", "collaborator", "viewer", "removed", "stranger"] as const) {
    const jar = new CookieJar(harness.baseUrl);
    const res = await jar.post(ACCOUNT_ROUTES.signUp, { email: `${who}@example.com`, password: "some passphrase" });
    if (res.status !== 200) throw new Error(`sign-up of ${who}: ${JSON.stringify(res.body)}`);
    ids[who] = (await jar.get<AuthState>(ACCOUNT_ROUTES.state)).body.account!.id;
    sockets[who] = await harness.client(jar.header);
    if (who === "viewer") viewerCookie = jar.header;
  }
  const created = await request(sockets.owner, "session:create", { title: "Team plans" });
  if (!created.ok) throw new Error(created.message);
  Object.assign(vars, { session: created.data.sessionId, owner: ids.owner!, collaborator: ids.collaborator!, viewer: ids.viewer! });
  removedId = ids.removed!;
  for (const [email, role] of [
    ["collaborator@example.com", "collaborator"],
    ["viewer@example.com", "viewer"],
    ["removed@example.com", "collaborator"],
  ] as const) {
    const added = await request(sockets.owner, "member:add", { sessionId: vars.session, email, role });
    if (!added.ok) throw new Error(added.message);
  }
  vars.turn = await sendWhenIdle(sockets.collaborator, "Draft the plans");
});

/** Sends a prompt once the chat's running turn (if any) has ended: one turn at a time per chat. */
async function sendWhenIdle(socket: TestClient, text: string): Promise<string> {
  await request(socket, "session:join", { sessionId: vars.session });
  for (;;) {
    const ended = new Promise<void>((resolve) => {
      const on = (e: SessionEvent) => {
        if (e.type !== "turn:ended") return;
        socket.off("agent:event", on);
        resolve();
      };
      socket.on("agent:event", on);
    });
    const sent = await request(socket, "turn:send", { sessionId: vars.session, text });
    if (sent.ok) {
      await ended;
      return sent.data.turnId;
    }
    if (sent.code !== "busy") throw new Error(sent.message);
    await ended;
  }
}
afterAll(async () => {
  await harness?.close();
});

describe("a chat's members", () => {
  it("are listed with their roles and names (an account's display name, from its sign-up), the owner first", async () => {
    const list = await request(sockets.viewer, "member:list", { sessionId: vars.session });
    expect(list.ok && list.data.you).toBe("viewer");
    expect(list.ok && list.data.people.map((p) => [p.name, p.role])).toEqual([
      ["owner", "owner"],
      ["collaborator", "collaborator"],
      ["viewer", "viewer"],
      ["removed", "collaborator"],
    ]);
  });

  it("see the chat in their sidebar, marked shared with its owner's name, and in search", async () => {
    const page = await request(sockets.viewer, "session:page", {});
    const row = page.ok ? page.data.sessions.find((s) => s.sessionId === vars.session) : undefined;
    expect(row?.shared).toEqual({ owner: "owner", role: "viewer" });
    const found = await request(sockets.viewer, "session:search", { query: "plans" });
    expect(found.ok && found.data.hits.some((h) => h.session.sessionId === vars.session)).toBe(true);
    const strangers = await request(sockets.stranger, "session:search", { query: "plans" });
    expect(strangers.ok && strangers.data.hits.some((h) => h.session.sessionId === vars.session)).toBe(false);
  });

  it("records who sent a prompt, for everyone who opens the chat", async () => {
    const joined = await request(sockets.viewer, "session:join", { sessionId: vars.session });
    const turn = joined.ok && joined.data.mode === "snapshot" ? joined.data.turns.find((t) => t.turnId === vars.turn) : undefined;
    expect(turn?.sentBy).toBe(vars.collaborator);
  });

  it("hear that a collaborator is typing, by name", async () => {
    const heard = new Promise<unknown>((resolve) => sockets.viewer.once("member:typing", resolve));
    await request(sockets.viewer, "session:join", { sessionId: vars.session });
    expect((await request(sockets.collaborator, "member:typing", { sessionId: vars.session })).ok).toBe(true);
    expect(await heard).toEqual({ sessionId: vars.session, accountId: vars.collaborator, name: "collaborator" });
  });

  it("see who has the chat open, as people open and leave it", async () => {
    const viewing = (want: (names: string[]) => boolean) =>
      new Promise<void>((resolve) => {
        const on = (p: MembersPresence) => {
          if (p.sessionId !== vars.session || !want(p.viewing.map((v) => v.name))) return;
          sockets.owner.off("members:presence", on);
          resolve();
        };
        sockets.owner.on("members:presence", on);
      });
    await request(sockets.owner, "session:join", { sessionId: vars.session });
    const opened = viewing((names) => names.includes("owner") && names.includes("viewer"));
    await request(sockets.viewer, "session:join", { sessionId: vars.session });
    await opened;
    const left = viewing((names) => names.includes("owner") && !names.includes("viewer"));
    await request(sockets.viewer, "session:leave", { sessionId: vars.session });
    await left;
  });

  it("export who sent each prompt, by name, as a file and as a transcript", async () => {
    const exported = async (format: string) => {
      const res = await fetch(`${harness.baseUrl}/api/sessions/${vars.session}/export?format=${format}`, {
        headers: { cookie: viewerCookie },
      });
      expect(res.status).toBe(200);
      return res.text();
    };
    const file = sessionFileSchema.parse(JSON.parse(await exported("json")));
    expect(file.turns.find((t) => t.turn.turnId === vars.turn)?.turn.sentBy).toBe(vars.collaborator);
    expect(file.session.people).toEqual([{ id: vars.collaborator, name: "collaborator" }]);
    expect(await exported("markdown")).toContain("### collaborator\n\n> Draft the plans");
  });
});

describe("a share link", () => {
  const shareJoin = async (names: boolean) => {
    const created = await harness.app.shares!.create(vars.owner, vars.session, { expiresIn: "1d", inspector: false, public: true, names });
    const token = created.path.slice("/s/".length);
    const socket = connect(`${harness.baseUrl}${SHARE_NAMESPACE}`, {
      auth: { token },
      transports: ["websocket"],
      forceNew: true,
      reconnection: false,
    });
    try {
      const ack = await new Promise<Ack<{ chat: SharedChat; join: JoinResult }>>((resolve) => socket.emit("share:join", {}, resolve));
      if (!ack.ok) throw new Error(ack.message);
      const turn = ack.data.join.mode === "snapshot" ? ack.data.join.turns.find((t) => t.turnId === vars.turn) : undefined;
      return { people: ack.data.chat.people, sentBy: turn?.sentBy };
    } finally {
      socket.disconnect();
    }
  };

  it("names nobody unless its owner chose to show members' names", async () => {
    expect(await shareJoin(false)).toEqual({ people: undefined, sentBy: undefined });
    const named = await shareJoin(true);
    expect(named.sentBy).toBe(vars.collaborator);
    expect(named.people?.map((p) => p.name)).toContain("collaborator");
  });
});

describe.each([
  { who: "viewer" as const, refused: ["act", "manage"] as Kind[] },
  { who: "collaborator" as const, refused: ["manage"] as Kind[] },
])("a $who", ({ who, refused }) => {
  it.each(Object.entries(COMMANDS).filter(([, c]) => c.kind !== "none"))("%s: allowed by its role or refused in words", async (name, c) => {
    const ack = await send(sockets[who], name, c.input(vars));
    if (refused.includes(c.kind)) {
      expect(ack).toMatchObject({ ok: false, code: "forbidden" });
      expect(!ack.ok && ack.message).toMatch(new RegExp(`^forbidden: a ${who} cannot `));
    } else {
      expect(ack.ok || ack.code).not.toBe("forbidden");
    }
  });
});

describe("someone who is not in the chat", () => {
  it("a member once removed is cut off at once: out of the room, told, and refused every command", async () => {
    const lost = new Promise<{ sessionId: string }>((resolve) => sockets.removed.once("session:access-lost", resolve));
    await request(sockets.removed, "session:join", { sessionId: vars.session });
    const removed = await request(sockets.owner, "member:remove", { sessionId: vars.session, accountId: removedId });
    expect(removed.ok && removed.data.people.some((p) => p.accountId === removedId)).toBe(false);
    expect(await lost).toEqual({ sessionId: vars.session });
    // The next turn's events reach the viewer's room, not the removed member's socket.
    const seen: SessionEvent[] = [];
    sockets.removed.on("agent:event", (e) => seen.push(e));
    await request(sockets.viewer, "session:join", { sessionId: vars.session });
    const ended = new Promise<void>((resolve) =>
      sockets.viewer.on("agent:event", (e) => {
        if (e.type === "turn:ended") resolve();
      }),
    );
    await sendWhenIdle(sockets.owner, "Who sees this?");
    await ended;
    expect(seen).toEqual([]);
  });

  it.each(["removed", "stranger"] as const)("%s: every command on the chat is answered as for a chat that does not exist", async (who) => {
    for (const [name, c] of Object.entries(COMMANDS)) {
      if (c.kind === "none") continue;
      const ack = await send(sockets[who], name, c.input(vars));
      expect(ack, name).toMatchObject({ ok: false, code: "not_found" });
      expect(!ack.ok && ack.message, name).toMatch(/does not exist/);
    }
  });

  it("the owner's chat is untouched by all of the above", async () => {
    const list = await request(sockets.owner, "member:list", { sessionId: vars.session });
    expect(list.ok && list.data.people.map((p) => p.role)).toEqual(["owner", "collaborator", "viewer"]);
    const page = await request(sockets.owner, "session:page", {});
    expect(page.ok && page.data.sessions.find((s) => s.sessionId === vars.session)?.title).toBe("Team plans");
  });
});
