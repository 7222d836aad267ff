import type { IncomingMessage, Server as HttpServer } from "node:http";
import type { Duplex } from "node:stream";
import { Server, type ServerOptions } from "socket.io";
import { hostAllowed, type HostRule } from "@/server/http/hosts";
import { originAllowed } from "@/server/http/origin";
import type { AppServer } from "./types";

/**
 * Largest socket message Socket.IO accepts (bigger ones close the connection with no
 * reply). Above the largest prompt a command allows (100,000 characters, at most ~600 KB
 * as JSON), so a prompt somewhat too long still gets a clear validation error; far below
 * 16 MB, which let thirty messages stall the server for 2 s while it parsed them.
 */
const MAX_SOCKET_MESSAGE_BYTES = 2 * 1024 * 1024;

type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void | Promise<void>;

/**
 * The Socket.IO server on the app's HTTP server: only from the Host names and origins the
 * app answers, with a bounded message size, and across processes through the cluster's
 * adapter when there is one. With Next's upgrade handler, the other WebSocket upgrades
 * (hot reload) go to Next instead of being cut off.
 */
export function createIoServer(
  httpServer: HttpServer,
  options: {
    allowedHosts: readonly HostRule[];
    allowedOrigins: readonly string[];
    adapter?: ServerOptions["adapter"];
    upgradeHandler?: UpgradeHandler;
  },
): AppServer {
  const { allowedHosts, allowedOrigins, adapter, upgradeHandler } = options;
  const io: AppServer = new Server(httpServer, {
    maxHttpBufferSize: MAX_SOCKET_MESSAGE_BYTES,
    destroyUpgrade: !upgradeHandler,
    allowRequest: (req, callback) => callback(null, hostAllowed(req.headers.host, allowedHosts) && originAllowed(req, allowedOrigins)),
    ...(adapter ? { adapter } : {}),
  });
  return io;
}

/** Next's WebSocket upgrades, from the Host names the app answers; Socket.IO keeps its own path. */
export function forwardUpgrades(httpServer: HttpServer, upgrade: UpgradeHandler, allowedHosts: readonly HostRule[]): void {
  httpServer.on("upgrade", (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    if (req.url?.startsWith("/socket.io/")) return;
    if (hostAllowed(req.headers.host, allowedHosts)) void upgrade(req, socket, head);
    else socket.destroy();
  });
}
