import { env } from "@/lib/env";
import { hostRules, type HostRule, type HostSettings } from "./hosts";
import { parseAllowedOrigins } from "./origin";

/** What every request and socket handshake is checked against, settled once at start. */
export interface HttpSettings {
  hosts: HostSettings;
  /** The Host names answered (DNS rebinding). */
  allowedHosts: HostRule[];
  /** Origins that may send cookies' requests and open sockets: ALLOWED_ORIGINS and PUBLIC_URL's. */
  allowedOrigins: string[];
  /** Development mode (Next's dev build needs eval in the CSP). */
  dev: boolean;
  secureCookies: boolean;
}

export function httpSettings(options: {
  hosts?: HostSettings;
  allowedOrigins?: string;
  dev?: boolean;
  /** Next's dev upgrade handler: given only in development, so it stands for `dev` when that is unset. */
  upgradeHandler?: unknown;
  secureCookies?: boolean;
}): HttpSettings {
  const hosts = options.hosts ?? { host: env().HOST, allowedHosts: env().ALLOWED_HOSTS, publicUrl: env().PUBLIC_URL };
  return {
    hosts,
    allowedHosts: hostRules(hosts),
    allowedOrigins: [...parseAllowedOrigins(options.allowedOrigins ?? ""), ...(hosts.publicUrl ? [new URL(hosts.publicUrl).origin] : [])],
    dev: options.dev ?? Boolean(options.upgradeHandler),
    secureCookies: options.secureCookies ?? false,
  };
}
