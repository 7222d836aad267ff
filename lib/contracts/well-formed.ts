/**
 * Text is normalised once, where it enters (model output, tool output, what a person
 * types, an agent's events, an imported file): a lone UTF-16 surrogate and a NUL become
 * U+FFFD. JSON, MongoDB's UTF-8 storage and the browser would each do that on their own
 * at different moments (the encoder replaces a lone surrogate; the HTML parser drops a NUL
 * from a server-rendered page and turns one in a script into U+FFFD; Markdown replaces
 * it), so without this the live view, the stored turn, the server-rendered page and the
 * rebuilt model context disagree on such a character. Both become one code unit, so text
 * offsets stay valid.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;
/** A cheap first look: text without a surrogate or a NUL is left as it is, uncopied. */
// eslint-disable-next-line no-control-regex -- a NUL is what this looks for
const SUSPECT = /[\u0000\uD800-\uDFFF]/;
// eslint-disable-next-line no-control-regex -- a NUL is what this replaces
const NUL = /\u0000/g;

export function wellFormed(text: string): string {
  if (!SUSPECT.test(text)) return text;
  const native = (text as { toWellFormed?: () => string }).toWellFormed;
  const formed = native ? native.call(text) : text.replace(LONE_SURROGATE, "\uFFFD");
  return formed.replace(NUL, "\uFFFD");
}

/**
 * Every string in a JSON-like value (an event, a turn, a parsed file) made well formed.
 * Objects and arrays without such a string are returned as they are, so an ordinary
 * event costs a scan and no copy.
 */
export function wellFormedDeep<T>(value: T): T {
  return formDeep(value) as T;
}

function formDeep(value: unknown): unknown {
  if (typeof value === "string") return wellFormed(value);
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const next = formDeep(value[i]);
      if (next !== value[i]) (out ??= value.slice())[i] = next;
    }
    return out ?? value;
  }
  if (value !== null && typeof value === "object" && Object.getPrototypeOf(value) === Object.prototype) {
    let out: Record<string, unknown> | undefined;
    for (const [key, item] of Object.entries(value)) {
      const next = formDeep(item);
      if (next !== item) (out ??= { ...(value as Record<string, unknown>) })[key] = next;
    }
    return out ?? value;
  }
  return value;
}
