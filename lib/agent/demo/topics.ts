/**
 * The demo model's "understanding": plain keyword rules over the user's words, chosen so
 * the behaviour is predictable and documented (see lib/model/demo-model.ts).
 */

export type Intent = "deep" | "research" | "chat";

const DEEP = /\b(deep[- ]?dive|thorough(ly)?|in[- ]depth)\b/i;
const RESEARCH = /\b(investigate|compare|research|look into|analy[sz]e|explore|find|review|summari[sz]e|check)\b/i;
const LEAD_IN =
  /^(please\s+|can you\s+|could you\s+|would you\s+|i want you to\s+|let'?s\s+)*(do a\s+)?(deep[- ]?dive( into| on)?|investigate|compare|research|look into|analy[sz]e|explore|find( out)?|review|summari[sz]e|check)\s+/i;
const TRAILING = /\s*(thoroughly|in[- ]depth|for me|please)?[.?!]*\s*$/i;
const SPLIT = /\s*(?:,|;|&|\band\b|\bvs\.?|\bversus\b|\bwith\b)\s*/i;
const STOPWORDS = new Set(
  "the a an of to in on for and or with about what which who how is are was were be this that these those it its our my your their into from by at as all any some open current module modules".split(
    " ",
  ),
);

export function classify(prompt: string): Intent {
  if (DEEP.test(prompt)) return "deep";
  if (RESEARCH.test(prompt)) return "research";
  return "chat";
}

/** A list that ends in its noun: "the harmonics, datums and stations modules". */
const SHARED_NOUN = /^(.+?)\s+(modules|files|notes|docs|tests)$/i;

/**
 * "investigate the open bugs and the release plan" → ["the open bugs", "the release plan"];
 * "compare the harmonics, datums and stations modules" → ["the harmonics module", …]. At most
 * five: MAX_CHILDREN_PER_AGENT's default, so every topic runs at once.
 */
export function topicsOf(prompt: string, max = 5): string[] {
  const firstLine = prompt.split("\n").find((l) => l.trim().length > 0) ?? prompt;
  const core = firstLine.trim().replace(LEAD_IN, "").replace(TRAILING, "").replace(DEEP, "").trim();
  const parts = core
    .split(SPLIT)
    .map((p) => p.trim().replace(/^(between|both)\s+/i, ""))
    .filter((p) => keywordsOf(p).length > 0);
  const unique = [...new Set(shareNoun(parts))];
  return (unique.length ? unique : [core || firstLine.trim()]).slice(0, max);
}

/** "the harmonics", "datums", "stations modules" → "the harmonics module", "the datums module", "the stations module". */
function shareNoun(parts: string[]): string[] {
  const last = SHARED_NOUN.exec(parts.at(-1) ?? "");
  if (parts.length < 2 || !last || parts.slice(0, -1).some((p) => p.split(/\s+/).length > 2)) return parts;
  const noun = last[2]!.toLowerCase().replace(/s$/, "");
  return [...parts.slice(0, -1), last[1]!].map((p) => `the ${p.replace(/^the\s+/i, "")} ${noun}`);
}

/** Search words: lower-case, stopwords dropped, simple plural stripped ("bugs" → "bug"). */
export function keywordsOf(text: string): string[] {
  const words = text
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length >= 3 && !STOPWORDS.has(w))
    .map((w) => (w.length > 3 && w.endsWith("s") && !w.endsWith("ss") ? w.slice(0, -1) : w));
  return [...new Set(words)].slice(0, 4);
}

/** Escapes a keyword for the grep tool's regular expression. */
export function escapeRegex(word: string): string {
  return word.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** A small stable hash (FNV-1a) for deterministic ids. */
export function stableHash(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, "0");
}
