import { createServer, connect, type Socket } from "node:net";

/**
 * A TCP proxy in front of the app that can drop the network for a while: every open
 * connection (the WebSocket included) is destroyed, and new ones are refused until the
 * cut ends. Chromium's offline emulation leaves open WebSockets alone, so it cannot stand
 * for a dropped connection.
 */
export interface CuttableProxy {
  url: string;
  /** Drops every connection and refuses new ones for `ms`. */
  cut(ms: number): Promise<void>;
  close(): Promise<void>;
}

export async function startCuttableProxy(target: string): Promise<CuttableProxy> {
  const { hostname, port } = new URL(target);
  const open = new Set<Socket>();
  let down = false;
  const server = createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    const upstream = connect(Number(port), hostname);
    for (const [a, b] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      open.add(a);
      a.pipe(b);
      a.on("error", () => b.destroy());
      a.on("close", () => {
        open.delete(a);
        b.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port: proxyPort } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${proxyPort}`,
    async cut(ms) {
      down = true;
      for (const socket of open) socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, ms));
      down = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
