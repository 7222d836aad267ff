import { io as connect, type Socket } from "socket.io-client";
import type { Ack, SessionEvent } from "@/lib/contracts";
import { TOKEN_TEXT } from "./scripted-runner";

/**
 * The relay benchmark's viewers, in a process of their own (forked by relay-compare.ts)
 * so they do not share the server's event loop. Told over IPC to open N socket.io-client
 * connections to either server (the app, joining a chat; or raw Socket.IO, joining a
 * room), it stamps when each token arrives on each connection, and once every connection
 * has seen the turn end it turns the stamps into latencies against the publish times the
 * parent sends, already converted to this process's clock.
 */
export type ClientsRequest =
  | { type: "sync"; t0: number }
  | { type: "open"; url: string; cookie?: string; sessionId: string; clients: number; mode: "raw" | "relay"; events: number }
  | { type: "sentAt"; sentAt: number[] }
  | { type: "exit" };

export type ClientsReply =
  | { type: "sync"; t0: number; tc: number }
  | { type: "ready" }
  | { type: "ended" }
  | { type: "result"; deliveries: number; lastDelivery: number; latencies: { p50: number; p99: number } }
  | { type: "error"; message: string };

const send = (reply: ClientsReply) => process.send!(reply);

let sockets: Socket[] = [];
let received: Float64Array[] = [];

process.on("message", (message: ClientsRequest) => {
  void handle(message).catch((error: unknown) => send({ type: "error", message: String(error) }));
});

async function handle(message: ClientsRequest): Promise<void> {
  switch (message.type) {
    case "sync":
      send({ type: "sync", t0: message.t0, tc: performance.now() });
      return;
    case "open":
      await open(message);
      send({ type: "ready" });
      return;
    case "sentAt":
      send(result(message.sentAt));
      for (const socket of sockets) socket.disconnect();
      sockets = [];
      return;
    case "exit":
      process.exit(0);
  }
}

async function open(request: Extract<ClientsRequest, { type: "open" }>): Promise<void> {
  received = [];
  let ended = 0;
  sockets = await Promise.all(
    Array.from({ length: request.clients }, async () => {
      const socket = connect(request.url, {
        transports: ["websocket"],
        reconnection: false,
        forceNew: true,
        ...(request.cookie ? { extraHeaders: { cookie: request.cookie } } : {}),
      });
      await new Promise<void>((resolve, reject) => {
        socket.once("connect", () => resolve());
        socket.once("connect_error", reject);
      });
      const stamps = new Float64Array(request.events).fill(Number.NaN);
      received.push(stamps);
      socket.on("agent:event", (event: SessionEvent) => {
        if (event.type === "subagent_data" && event.data.kind === "token")
          stamps[event.data.offset / TOKEN_TEXT.length] = performance.now();
        else if (event.type === "turn:ended" && ++ended === request.clients) send({ type: "ended" });
      });
      const joined = await new Promise<Ack<unknown>>((resolve) =>
        socket.emit(request.mode === "relay" ? "session:join" : "join", { sessionId: request.sessionId }, resolve),
      );
      if (!joined.ok) throw new Error(`join refused: ${joined.message}`);
      return socket;
    }),
  );
}

function result(sentAt: readonly number[]): ClientsReply {
  const latencies: number[] = [];
  let lastDelivery = 0;
  for (const stamps of received) {
    for (let i = 0; i < stamps.length; i++) {
      const at = stamps[i]!;
      if (Number.isNaN(at)) continue;
      latencies.push(at - sentAt[i]!);
      if (at > lastDelivery) lastDelivery = at;
    }
  }
  const sorted = Float64Array.from(latencies).sort();
  const rank = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? Number.NaN;
  return { type: "result", deliveries: latencies.length, lastDelivery, latencies: { p50: rank(50), p99: rank(99) } };
}
