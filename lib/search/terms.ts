/**
 * The words search knows a text by, and the query a person typed, in one normal form:
 * lowercase, diacritics folded ("Café" and "cafe" are one word), split at anything that
 * is not a letter or a digit. Indexing and querying both go through `normalWord`, so a
 * stored term and a typed word can only ever meet in the same form.
 *
 * Why not MongoDB's `$text`: the test database server (mongo-java-server) accepts a text
 * index but refuses `$text` queries, and `$text` has no prefix matching either, so the
 * word being typed would find nothing until it is complete. A term array per document
 * with a multikey index answers both servers identically: `$all` for whole words and one
 * anchored prefix (`^abc`, an index range scan) for the last word.
 */

/** Longer words (hashes, URLs run together) are cut: the first characters still find them. */
export const MAX_TERM_CHARS = 32;
/** Distinct terms kept per indexed field; a huge tool dump cannot bloat the index. */
export const MAX_TERMS = 5_000;
/** Words of a query used at most; the rest add nothing but work. */
export const MAX_QUERY_WORDS = 8;

/** A run of letters, digits and combining marks (so "cafe\u0301" stays one word until folded). */
const WORD = /[\p{L}\p{N}\p{M}]+/gu;
const MARKS = /\p{M}/gu;
/** The query ends inside a word: that word is still being typed. */
const ENDS_IN_WORD = /[\p{L}\p{N}\p{M}]$/u;

/** One word in the normal form: compatibility-decomposed, marks removed, lowercase, capped. */
export function normalWord(word: string): string {
  return word.normalize("NFKD").replace(MARKS, "").toLowerCase().slice(0, MAX_TERM_CHARS);
}

/** The distinct terms of `texts`, in first-seen order, at most `MAX_TERMS`. */
export function termsOf(...texts: string[]): string[] {
  const terms = new Set<string>();
  for (const text of texts) {
    for (const match of text.matchAll(WORD)) {
      const term = normalWord(match[0]);
      if (term) terms.add(term);
      if (terms.size >= MAX_TERMS) return [...terms];
    }
  }
  return [...terms];
}

export interface ParsedQuery {
  /** Words that must appear whole. */
  words: string[];
  /** The word still being typed: any term that starts with it matches. Null after a space. */
  prefix: string | null;
}

/** What a typed query asks for; empty (no words, no prefix) when it has no letters or digits. */
export function parseQuery(query: string): ParsedQuery {
  const all = [...query.matchAll(WORD)].map((m) => normalWord(m[0])).filter(Boolean);
  const typing = all.length > 0 && ENDS_IN_WORD.test(query);
  const prefix = typing ? all.pop()! : null;
  const words = [...new Set(all)].filter((w) => w !== prefix).slice(0, MAX_QUERY_WORDS - (prefix ? 1 : 0));
  return { words, prefix };
}

export function isEmptyQuery(q: ParsedQuery): boolean {
  return q.words.length === 0 && q.prefix === null;
}

/** Does one normalised term satisfy one part of the query? */
function hits(term: string, q: ParsedQuery): boolean {
  return q.words.includes(term) || (q.prefix !== null && term.startsWith(q.prefix));
}

/** How many of the query's parts `text` satisfies (0…words+1): the basis of ranking. */
export function matchCount(text: string, q: ParsedQuery): number {
  const terms = new Set(termsOf(text));
  let n = q.words.filter((w) => terms.has(w)).length;
  if (q.prefix !== null && [...terms].some((t) => t.startsWith(q.prefix!))) n += 1;
  return n;
}

/** [start, end) character ranges of `text` to highlight. */
export type Highlights = [number, number][];

/** The words of `text` that match the query, as ranges of the original text. */
export function highlightsOf(text: string, q: ParsedQuery): Highlights {
  const out: Highlights = [];
  for (const match of text.matchAll(WORD)) {
    if (hits(normalWord(match[0]), q)) out.push([match.index, match.index + match[0].length]);
  }
  return out;
}

export interface Snippet {
  text: string;
  highlights: Highlights;
}

/**
 * A short excerpt of `text` around its first match (about `width` characters on one
 * line), with the matches inside it as ranges of the excerpt. "…" marks a cut.
 */
export function snippetOf(text: string, q: ParsedQuery, width = 160): Snippet {
  const flat = text.replace(/\s+/g, " ").trim();
  const all = highlightsOf(flat, q);
  const first = all[0];
  let start = first ? Math.max(0, first[0] - Math.floor(width / 3)) : 0;
  // Start at a word boundary rather than mid-word.
  if (start > 0) {
    const space = flat.indexOf(" ", start);
    if (space !== -1 && first && space < first[0]) start = space + 1;
  }
  const end = Math.min(flat.length, start + width);
  const lead = start > 0 ? "…" : "";
  const tail = end < flat.length ? "…" : "";
  const highlights: Highlights = all
    .filter(([s, e]) => s >= start && e <= end)
    .map(([s, e]) => [s - start + lead.length, e - start + lead.length]);
  return { text: `${lead}${flat.slice(start, end)}${tail}`, highlights };
}

/** A snippet cut into plain and highlighted parts, for rendering without any markup. */
export function snippetParts(snippet: Snippet): { text: string; mark: boolean }[] {
  const parts: { text: string; mark: boolean }[] = [];
  let at = 0;
  for (const [s, e] of snippet.highlights) {
    if (s < at || e > snippet.text.length || s >= e) continue;
    if (s > at) parts.push({ text: snippet.text.slice(at, s), mark: false });
    parts.push({ text: snippet.text.slice(s, e), mark: true });
    at = e;
  }
  if (at < snippet.text.length) parts.push({ text: snippet.text.slice(at), mark: false });
  return parts;
}

/** The text of a regex that matches `literal` exactly: never build a RegExp from user text unescaped. */
export function escapeRegex(literal: string): string {
  return literal.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");
}
