import type { IncomingMessage, ServerResponse } from "node:http";
import type { Registry } from "prom-client";
import { isLoopback, metricsAccess } from "./metrics-access";

export const METRICS_PATH = "/metrics";

export interface MetricsRouteDeps {
  registry: Registry;
  /** METRICS_TOKEN: the bearer token a request from outside the loopback interface must carry; absent: none may. */
  token?: string;
  /** Which addresses are the loopback interface's (tests play another address from 127.0.0.2). */
  isLoopback?: (address: string | undefined) => boolean;
}

/** GET /metrics: the registry in Prometheus's text exposition format, to those metrics-access.ts lets in. */
export async function serveMetrics(req: IncomingMessage, res: ServerResponse, deps: MetricsRouteDeps, hostAllowed: boolean): Promise<void> {
  req.resume();
  if (req.method !== "GET" && req.method !== "HEAD") {
    json(res, 405, { error: "method_not_allowed", message: "GET /metrics." }, { allow: "GET, HEAD" });
    return;
  }
  const access = metricsAccess(
    {
      remoteAddress: req.socket.remoteAddress,
      authorization: req.headers.authorization,
      forwarded: req.headers.forwarded !== undefined || req.headers["x-forwarded-for"] !== undefined,
      hostAllowed,
    },
    deps.token,
    deps.isLoopback ?? isLoopback,
  );
  if (!access.ok) {
    json(
      res,
      access.status,
      { error: access.code, message: access.message },
      access.status === 401 ? { "www-authenticate": 'Bearer realm="metrics"' } : {},
    );
    return;
  }
  const text = await deps.registry.metrics();
  res.writeHead(200, { "content-type": deps.registry.contentType, "cache-control": "no-store" });
  res.end(req.method === "HEAD" ? undefined : text);
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store", ...headers });
  res.end(JSON.stringify(body));
}
