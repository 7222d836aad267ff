import { checkedTarget, normalizeHost } from "@/lib/tools/checked-target";
import { AddressRefusedError, guardedFetch } from "@/server/net/guarded-fetch";
import { refreshOnce } from "./refresh-once";

/** How long the check of a redirect's target may take (a DNS lookup). */
const REDIRECT_CHECK_MS = 5_000;

/**
 * The fetch of a server with sign-in. The MCP messages go to the address the operator
 * configured, as any server's do. Everything else the OAuth flow fetches — protected
 * resource metadata, authorization server metadata, registration, tokens — has an address
 * that came from a remote server's answers, so it goes through the guarded fetch: every
 * hop resolved and checked, private and link-local addresses refused, https required,
 * except on the configured server's own host (the operator trusts the host it named).
 *
 * The SDK asks for redirects by hand (`redirect: "manual"`) and follows only those within
 * an origin, so a redirect elsewhere is never fetched; its target is still checked here,
 * so one that points at a refused address is reported as such. `onRefused` hears of each
 * refusal: the SDK treats a failed metadata fetch as "none published" and moves on, so the
 * refusal would otherwise never reach the person.
 */
export function oauthFetch(serverUrl: string, base: typeof fetch = fetch, onRefused?: (error: AddressRefusedError) => void): typeof fetch {
  const server = new URL(serverUrl);
  const endpoint = server.origin + server.pathname;
  const allowed = new Set([normalizeHost(server.hostname)]);
  const guarded = refreshOnce(guardedFetch({ allowHosts: [server.hostname], httpsOnly: true }));
  const refused = (error: unknown) => {
    if (error instanceof AddressRefusedError) onRefused?.(error);
    return error;
  };
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.origin + url.pathname === endpoint) return base(input, init);
    const response = await guarded(input, init).catch((error: unknown) => {
      throw refused(error);
    });
    const location = response.status >= 300 && response.status < 400 ? response.headers.get("location") : null;
    if (location) await checkRedirect(new URL(location, url), allowed).catch(refused);
    return response;
  };
}

async function checkRedirect(target: URL, allowed: ReadonlySet<string>): Promise<void> {
  const host = normalizeHost(target.hostname);
  if (target.protocol !== "https:" && !allowed.has(host)) throw new AddressRefusedError(`a redirect to ${target.host} must be to https`);
  await checkedTarget(target, allowed, AbortSignal.timeout(REDIRECT_CHECK_MS));
}
