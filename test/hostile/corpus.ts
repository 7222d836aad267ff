import { readFileSync } from "node:fs";
import path from "node:path";

/**
 * The hostile-input corpus (test-data/hostile/*.json) and the expansion of its compact
 * descriptors. JSON cannot hold a 10 MB string, 10,000 nesting levels, NaN or a Buffer
 * without being unreadable, so cases describe such values and `expand` builds them:
 *
 * - `{ "$repeat": "x", "times": 10485760 }`            → "xxxx…" (10 MB)
 * - `{ "$concat": ["a", { "$repeat": … }, "b"] }`      → the parts joined as text
 * - `{ "$nest": 10000, "as": "object"|"array", "key": "a" }` → {"a":{"a":…null}} (a value)
 * - `{ "$nestText": 10000, … }`                        → the same as JSON text (V8's
 *   JSON.stringify overflows its stack at such depths; JSON.parse does not)
 * - `{ "$number": "NaN"|"Infinity"|"-Infinity"|"-0"|"1e309" }`
 * - `{ "$chunks": …, "size": 65536 }`                → the text cut into stream chunks
 * - `{ "$manyKeys": 10000 }`                          → { k0: 0, k1: 1, … }
 * - `{ "$bytes": "<base64>" }`                         → a Buffer (a binary attachment)
 * - `{ "$json": … }`                                   → JSON text of the expanded value
 * - `{ "$literal": … }`                                → the value, not expanded
 *
 * Strings may name `{placeholders}` (a session id, a server origin) that the test fills
 * in. Object keys are copied as own properties, so `__proto__` stays a key on the wire
 * instead of becoming a prototype here.
 */

export const CORPUS_DIR = path.resolve(process.cwd(), "test-data/hostile");

/** Largest value a descriptor may build: bounds a typo like `"times": 1e12`. */
const MAX_EXPANDED_CHARS = 64 * 1024 * 1024;
const MAX_NEST = 100_000;

export type Vars = Record<string, string>;

export interface CorpusFile<C> {
  description: string;
  cases: C[];
}

export function loadCorpus<C extends { id: string }>(name: string): CorpusFile<C> {
  const file = JSON.parse(readFileSync(path.join(CORPUS_DIR, name), "utf8")) as CorpusFile<C>;
  const seen = new Set<string>();
  for (const c of file.cases) {
    if (seen.has(c.id)) throw new Error(`${name}: duplicate case id ${c.id}`);
    seen.add(c.id);
  }
  return file;
}

const PLACEHOLDER = /\{([a-zA-Z]+)\}/g;

function fill(text: string, vars: Vars): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => (Object.hasOwn(vars, name) ? vars[name]! : whole));
}

/** Builds the real value a descriptor stands for. */
export function expand(value: unknown, vars: Vars = {}): unknown {
  if (typeof value === "string") return fill(value, vars);
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => expand(v, vars));
  const d = value as Record<string, unknown>;
  if ("$literal" in d) return d.$literal;
  if ("$repeat" in d) {
    const unit = String(expand(d.$repeat, vars));
    const times = Number(d.times);
    if (!Number.isInteger(times) || times < 0 || unit.length * times > MAX_EXPANDED_CHARS) throw new Error(`bad $repeat: ${times}`);
    return unit.repeat(times);
  }
  if ("$chunks" in d) {
    const text = String(expand(d.$chunks, vars));
    const size = Math.max(1, Number(d.size));
    return Array.from({ length: Math.ceil(text.length / size) }, (_, i) => text.slice(i * size, (i + 1) * size));
  }
  if ("$concat" in d) return (d.$concat as unknown[]).map((p) => String(expand(p, vars))).join("");
  if ("$nestText" in d) return nestText(Number(d.$nestText), d.as === "array" ? "array" : "object", String(d.key ?? "a"));
  if ("$nest" in d) return JSON.parse(nestText(Number(d.$nest), d.as === "array" ? "array" : "object", String(d.key ?? "a")));
  if ("$number" in d) return special(String(d.$number));
  if ("$manyKeys" in d) return Object.fromEntries(Array.from({ length: Math.min(Number(d.$manyKeys), MAX_NEST) }, (_, i) => [`k${i}`, i]));
  if ("$bytes" in d) return Buffer.from(String(d.$bytes), "base64");
  if ("$json" in d) return JSON.stringify(expand(d.$json, vars));
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(d)) {
    Object.defineProperty(out, fill(key, vars), { value: expand(d[key], vars), enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function nestText(depth: number, as: "object" | "array", key: string): string {
  if (!Number.isInteger(depth) || depth < 0 || depth > MAX_NEST) throw new Error(`bad $nest: ${depth}`);
  const open = as === "array" ? "[" : `{${JSON.stringify(key)}:`;
  const close = as === "array" ? "]" : "}";
  return `${open.repeat(depth)}null${close.repeat(depth)}`;
}

function special(name: string): number {
  switch (name) {
    case "NaN":
      return Number.NaN;
    case "Infinity":
    case "1e309":
      return Number.POSITIVE_INFINITY;
    case "-Infinity":
      return Number.NEGATIVE_INFINITY;
    case "-0":
      return -0;
    default:
      throw new Error(`unknown $number ${name}`);
  }
}

/** A short, printable label for a case (test titles must not carry 10 MB or a NUL). */
export function label(c: { id: string; note?: string }): string {
  return c.note ? `${c.id}: ${c.note}` : c.id;
}
