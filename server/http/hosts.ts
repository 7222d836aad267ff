import type { ServerResponse } from "node:http";

/**
 * The Host allow-list, against DNS rebinding: a page on an attacker's DNS name that
 * resolves to 127.0.0.1 is same-origin with itself, so the Origin check lets it in and
 * the browser sends it this app's answers. Only the Host header tells the two apart, so
 * every request and socket handshake must name a host this instance knows it is called by.
 */
export interface HostRule {
  /** Lower case, IPv6 in brackets, no trailing dot. */
  name: string;
  /** Only this port when set; any port when not. */
  port?: string;
}

export interface HostSettings {
  /** The interface listened on (HOST); a name or address of its own unless it is a wildcard. */
  host: string;
  /** ALLOWED_HOSTS: comma-separated host names, each with an optional port. */
  allowedHosts: string;
  /** PUBLIC_URL: the address people use (behind a reverse proxy); its host is allowed. */
  publicUrl?: string;
}

const LOOPBACK = ["localhost", "127.0.0.1", "[::1]"];
const WILDCARDS = new Set(["0.0.0.0", "::", "[::]"]);
const HOST_PATTERN = /^(\[[0-9a-f:.]+\]|[a-z0-9_.-]+?)\.?(?::(\d{1,5}))?$/;

/** A Host header or setting split into name and port; null when it is not one. */
export function splitHost(text: string): HostRule | null {
  const match = HOST_PATTERN.exec(text.trim().toLowerCase());
  if (!match) return null;
  return match[2] ? { name: match[1]!, port: match[2] } : { name: match[1]! };
}

export function hostRules(settings: HostSettings): HostRule[] {
  const rules: HostRule[] = LOOPBACK.map((name) => ({ name }));
  const listen = settings.host.includes(":") && !settings.host.startsWith("[") ? `[${settings.host}]` : settings.host;
  if (!WILDCARDS.has(listen)) rules.push({ name: splitHost(listen)?.name ?? listen });
  for (const entry of settings.allowedHosts.split(",")) {
    const rule = entry.trim() ? splitHost(entry) : null;
    if (rule) rules.push(rule);
  }
  if (settings.publicUrl) {
    const url = new URL(settings.publicUrl);
    rules.push(url.port ? { name: url.hostname, port: url.port } : { name: url.hostname });
  }
  return rules;
}

export function hostAllowed(header: string | undefined, rules: readonly HostRule[]): boolean {
  const given = header ? splitHost(header) : null;
  if (!given) return false;
  return rules.some((rule) => rule.name === given.name && (!rule.port || rule.port === given.port));
}

/** 421 Misdirected Request: this server does not answer for that name. */
export function refuseHost(res: ServerResponse): void {
  res.writeHead(421, { "content-type": "text/plain; charset=utf-8", "cache-control": "no-store" });
  res.end("Unknown host name. Add it to ALLOWED_HOSTS (or set PUBLIC_URL) to serve it.\n");
}
