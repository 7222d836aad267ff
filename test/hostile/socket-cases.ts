import { expect } from "vitest";
import type { Ack } from "@/lib/contracts";
import type { TestClient } from "@/test/support/server/app-harness";
import { expand, type Vars } from "./corpus";

/** One hostile socket command (test-data/hostile/socket-commands.json). */
export interface SocketCase {
  id: string;
  note?: string;
  command?: string;
  /** Absent with `send: "ack-only"`: the input argument is left out. */
  input?: unknown;
  /** How the arguments are laid out; the usual `emit(name, input, ack)` by default. */
  send?: "input+ack" | "no-ack" | "ack-only" | "extra-arg";
  /** A Socket.IO packet written to the engine as-is, past the client's encoder. */
  raw?: unknown;
  expect: SocketExpect;
}

export interface SocketExpect {
  ack?: { ok: boolean; code?: string; messageMatches?: string; data?: Record<string, unknown> };
  /** A person reads the message: it must be a sentence, not the payload echoed back. */
  messageMaxChars?: number;
  listedTitle?: unknown;
  noReply?: true;
  disconnect?: true;
}

export type Outcome = { kind: "ack"; ack: Ack<unknown> } | { kind: "noReply" } | { kind: "disconnect"; reason: string };

const DEFAULT_MESSAGE_MAX_CHARS = 300;
/** How long silence must last to count as "no reply" (acks on loopback take milliseconds). */
const SILENCE_MS = 400;
/** An ack on loopback takes milliseconds; three seconds of silence means none is coming. */
const REPLY_TIMEOUT_MS = 3_000;
/** Generous: a 10 MB payload is encoded, sent and parsed on two shared cores. */
const LARGE_REPLY_TIMEOUT_MS = 20_000;

let nextAckId = 900_000;

type Engine = {
  write(data: string): void;
  on(event: "packet", fn: (p: { type: string; data?: unknown }) => void): void;
  off(event: "packet", fn: (p: { type: string; data?: unknown }) => void): void;
};

/** Sends one case the way it describes and reports what came back. */
export function sendCase(socket: TestClient, c: SocketCase, vars: Vars): Promise<Outcome> {
  const ackId = nextAckId++;
  const large = JSON.stringify([c.input, c.raw]).includes('"$repeat"');
  const waitMs = c.expect.noReply ? SILENCE_MS : large ? LARGE_REPLY_TIMEOUT_MS : REPLY_TIMEOUT_MS;
  return new Promise<Outcome>((resolve) => {
    const engine = (socket as unknown as { io: { engine: Engine } }).io.engine;
    const done = (outcome: Outcome) => {
      clearTimeout(timer);
      socket.off("disconnect", onDisconnect);
      engine.off("packet", onPacket);
      resolve(outcome);
    };
    const onDisconnect = (reason: string) => done({ kind: "disconnect", reason });
    // Raw cases carry their own ack id; the server's answer is packet `3<id>[ack]`.
    const prefix = `3${ackId}[`;
    const onPacket = (p: { type: string; data?: unknown }) => {
      if (p.type === "message" && typeof p.data === "string" && p.data.startsWith(prefix)) {
        done({ kind: "ack", ack: (JSON.parse(p.data.slice(prefix.length - 1)) as [Ack<unknown>])[0] });
      }
    };
    const timer = setTimeout(() => done({ kind: "noReply" }), waitMs);
    socket.once("disconnect", onDisconnect);
    const onAck = (ack: Ack<unknown>) => done({ kind: "ack", ack });

    if (c.raw !== undefined) {
      engine.on("packet", onPacket);
      engine.write(String(expand(c.raw, { ...vars, ack: String(ackId) })));
      return;
    }
    const emit = socket.emit as unknown as (name: string, ...args: unknown[]) => void;
    const name = c.command!;
    const input = () => expand(c.input, vars);
    switch (c.send ?? "input+ack") {
      case "input+ack":
        return emit.call(socket, name, input(), onAck);
      case "no-ack":
        return emit.call(socket, name, input());
      case "ack-only":
        return emit.call(socket, name, onAck);
      case "extra-arg":
        return emit.call(socket, name, input(), "extra", onAck);
    }
  });
}

/** Asserts the outcome a case names; returns the acked data for follow-up checks. */
export function checkOutcome(c: SocketCase, outcome: Outcome): unknown {
  const want = c.expect;
  if (want.disconnect) {
    expect(outcome.kind, `${c.id}: the server should drop this connection`).toBe("disconnect");
    return undefined;
  }
  if (want.noReply) {
    expect(outcome.kind, `${c.id}: nothing should answer`).toBe("noReply");
    return undefined;
  }
  expect(outcome, `${c.id}: expected an ack`).toMatchObject({ kind: "ack" });
  if (outcome.kind !== "ack") return undefined;
  const ack = outcome.ack;
  expect(ack.ok, `${c.id}: ${JSON.stringify(ack).slice(0, 300)}`).toBe(want.ack!.ok);
  if (!ack.ok) {
    expect(ack.code, `${c.id}: never an internal error`).not.toBe("internal");
    if (want.ack!.code) expect(ack.code).toBe(want.ack!.code);
    if (want.ack!.messageMatches) expect(ack.message).toMatch(new RegExp(want.ack!.messageMatches));
    expect(ack.message.length, `${c.id}: the error should be a sentence, not an echo`).toBeLessThanOrEqual(
      want.messageMaxChars ?? DEFAULT_MESSAGE_MAX_CHARS,
    );
    return undefined;
  }
  if (want.ack!.data) expect(ack.data).toMatchObject(want.ack!.data);
  return ack.data;
}
