import { USAGE_ROUTE } from "@/lib/contracts/usage";

export const USAGE_PATH = "/usage";

/** The report's API address for a query (empty parts left out, so the server's defaults apply). */
export function usageApiHref(query: { from?: string; to?: string; person?: string | null }): string {
  const params = new URLSearchParams();
  if (query.from) params.set("from", query.from);
  if (query.to) params.set("to", query.to);
  if (query.person) params.set("person", query.person);
  const search = params.toString();
  return search ? `${USAGE_ROUTE}?${search}` : USAGE_ROUTE;
}
