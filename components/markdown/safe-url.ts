/**
 * Model output is untrusted: only absolute http(s) and mailto links survive. Relative
 * links, `javascript:`, `data:` and anything unparsable are dropped (the text stays).
 */
const SAFE_PROTOCOLS = new Set(["http:", "https:", "mailto:"]);

export function safeUrl(url: string): string | null {
  try {
    const parsed = new URL(url);
    return SAFE_PROTOCOLS.has(parsed.protocol) ? parsed.href : null;
  } catch {
    return null;
  }
}
