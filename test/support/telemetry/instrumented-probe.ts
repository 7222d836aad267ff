// Run as its own process (`node --import tsx`) by server/telemetry/instrumentation.test.ts:
// tracing is started the way server/index.ts starts it (its first import), then an HTTP
// server with Socket.IO answers one request and one socket event on a loopback port, emits
// a relayed agent event and a sidebar update to the client, and the process flushes its
// spans (OTEL_TRACES_EXPORTER=console prints them) and exits.
import { telemetry } from "@/server/telemetry/preload";
import http from "node:http";
import { Server } from "socket.io";
import { io as connect } from "socket.io-client";

const server = http.createServer((_, res) => res.end("ok"));
const io = new Server(server);
io.on("connection", (socket) => socket.on("probe:ping", (ack: (answer: string) => void) => ack("pong")));
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
const { port } = server.address() as { port: number };
await (await fetch(`http://127.0.0.1:${port}/api/probe`)).text();
const client = connect(`http://127.0.0.1:${port}`, { transports: ["websocket"], reconnection: false });
await new Promise<void>((resolve, reject) => {
  client.once("connect", () => resolve());
  client.once("connect_error", reject);
});
const answer: unknown = await client.timeout(5_000).emitWithAck("probe:ping");
const received = ["agent:event", "sessions:changed"].map((name) => new Promise<void>((resolve) => client.once(name, () => resolve())));
io.emit("agent:event", { probe: true });
io.emit("sessions:changed", []);
await Promise.all(received);
client.disconnect();
await new Promise<void>((resolve) => void io.close(() => resolve()));
await telemetry?.shutdown();
process.stdout.write(`PROBE ${telemetry ? "traced" : "untraced"} ${String(answer)}\n`);
