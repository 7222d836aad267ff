import { createHash, timingSafeEqual } from "node:crypto";
import { BlockList, isIP } from "node:net";

/**
 * Who may read /metrics. The figures say how busy the app is and which models it runs,
 * so they are not public: a request from the loopback interface reads them without more
 * (a Prometheus or an agent beside the app), anyone else only with `Authorization: Bearer
 * <METRICS_TOKEN>`, and with no METRICS_TOKEN nobody else at all.
 *
 * A loopback request must also name a host this app answers to: a page on a rebound DNS
 * name reaches 127.0.0.1 from the person's own browser, and only its Host header tells
 * it apart. And a request that came through a proxy (it carries Forwarded or
 * X-Forwarded-For) is not a loopback one whatever its address: a reverse proxy on the
 * same machine connects from 127.0.0.1 on behalf of anyone.
 */
export interface MetricsRequest {
  remoteAddress: string | undefined;
  authorization: string | undefined;
  /** It carries Forwarded or X-Forwarded-For. */
  forwarded: boolean;
  /** Its Host is one this app answers to (hosts.ts). */
  hostAllowed: boolean;
}

export type MetricsAccess = { ok: true } | { ok: false; status: 401 | 403; code: string; message: string };

export function metricsAccess(
  request: MetricsRequest,
  token: string | undefined,
  loopback: (address: string | undefined) => boolean = isLoopback,
): MetricsAccess {
  if (token && request.authorization !== undefined) {
    if (bearerMatches(request.authorization, token)) return { ok: true };
    return { ok: false, status: 401, code: "bad_token", message: "The bearer token does not match METRICS_TOKEN." };
  }
  if (loopback(request.remoteAddress) && !request.forwarded && request.hostAllowed) return { ok: true };
  if (!token) {
    return {
      ok: false,
      status: 403,
      code: "metrics_local_only",
      message:
        "/metrics answers only on the loopback interface. Set METRICS_TOKEN to read it from elsewhere with Authorization: Bearer <token>.",
    };
  }
  return { ok: false, status: 401, code: "token_required", message: "Send Authorization: Bearer <METRICS_TOKEN> to read /metrics." };
}

/** 127.0.0.0/8, ::1, and IPv4 loopback written as IPv6 (a dual-stack socket's view of it). */
export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.toLowerCase().startsWith("::ffff:") ? address.slice("::ffff:".length) : address;
  if (isIP(v4) === 4) return LOOPBACK.check(v4, "ipv4");
  return isIP(address) === 6 && LOOPBACK.check(address, "ipv6");
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet("127.0.0.0", 8, "ipv4");
LOOPBACK.addAddress("::1", "ipv6");

/**
 * `Bearer <token>` compared in constant time: both sides are hashed first, so neither the
 * token's characters nor its length leak through how long the comparison takes.
 */
export function bearerMatches(authorization: string, token: string): boolean {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
  const given = createHash("sha256")
    .update(match?.[1] ?? "")
    .digest();
  const expected = createHash("sha256").update(token).digest();
  return timingSafeEqual(given, expected) && match !== null;
}
