import { lookup } from "node:dns/promises";
import { isIP, type LookupFunction } from "node:net";
import { refusalReason } from "./address-policy";

/** The address a request may connect to, chosen after every address of its host passed the policy. */
export interface CheckedTarget {
  address: string;
  family: 4 | 6;
}

/** A host refused by the address policy, or (`unresolved`) one that does not resolve; the message says why. */
export class AddressRefusedError extends Error {
  override name = "AddressRefusedError";
  constructor(
    message: string,
    readonly unresolved = false,
  ) {
    super(message);
  }
}

/**
 * Resolves `url`'s host and checks every address it resolves to against the address
 * policy, unless the host is one of `allowed` (normalised, as `normalizeHost` gives).
 * Every address must pass: the OS may pick any of them when connecting. Pair the result
 * with `pinnedLookup`, so the connection goes to exactly the address that was checked and
 * a name cannot re-resolve to 127.0.0.1 in between (DNS rebinding).
 */
export async function checkedTarget(url: URL, allowed: ReadonlySet<string>, signal: AbortSignal): Promise<CheckedTarget> {
  const host = normalizeHost(url.hostname);
  const exempt = allowed.has(host);
  if (isIP(host)) {
    const reason = refusalReason(host);
    if (reason && !exempt) throw new AddressRefusedError(`${host} is ${reason}`);
    return { address: host, family: isIP(host) as 4 | 6 };
  }
  let addresses: Array<{ address: string; family: number }>;
  try {
    addresses = await raceAbort(lookup(host, { all: true, verbatim: true }), signal);
  } catch (error) {
    if (signal.aborted) throw error;
    throw new AddressRefusedError(`the host name ${host} does not resolve`, true);
  }
  if (!exempt) {
    for (const { address } of addresses) {
      const reason = refusalReason(address);
      if (reason) throw new AddressRefusedError(`${host} resolves to ${address}, which is ${reason}`);
    }
  }
  const first = addresses[0];
  if (!first) throw new AddressRefusedError(`the host name ${host} has no addresses`, true);
  return { address: first.address, family: first.family === 6 ? 6 : 4 };
}

/**
 * A `lookup` for http(s).request that answers with the checked address whatever the
 * resolver would say now; SNI and the Host header still carry the name, so TLS
 * certificates are verified against it.
 */
export function pinnedLookup(target: CheckedTarget): LookupFunction {
  return (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) {
      (callback as (e: null, list: CheckedTarget[]) => void)(null, [target]);
    } else {
      callback(null, target.address, target.family);
    }
  };
}

/** A host as the allow lists compare it: lower case, no IPv6 brackets, no trailing dot. */
export function normalizeHost(host: string): string {
  return host
    .trim()
    .toLowerCase()
    .replace(/^\[|\]$/g, "")
    .replace(/\.$/, "");
}

function raceAbort<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}
