import type { Server as HttpServer } from "node:http";
import type { AppServer } from "@/server/realtime/types";
import type { SessionRegistry } from "@/server/sessions/registry";

/**
 * Stops the app in the order that leaves nothing behind: the running turns end first,
 * while their viewers are still connected to be told and the cluster can still publish
 * the ending and release each turn's lease; then the sockets close, whose cluster adapter
 * reads Redis; then the cluster lets go of Redis; the HTTP server last.
 */
export async function closeApp(parts: {
  registry: Pick<SessionRegistry, "shutdown">;
  io: Pick<AppServer, "close">;
  cluster?: { close(): Promise<void> };
  openSockets?: { stop(): void };
  httpServer: HttpServer;
}): Promise<{ ended: { sessionId: string; turnId: string }[] }> {
  const { registry, io, cluster, openSockets, httpServer } = parts;
  const ended = await registry.shutdown();
  await io.close();
  openSockets?.stop();
  await cluster?.close();
  await new Promise<void>((resolve) => (httpServer.listening ? httpServer.close(() => resolve()) : resolve()));
  return { ended };
}
