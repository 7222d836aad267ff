/**
 * Text is normalised once, where it enters (model output, tool output, what a person
 * types): a lone UTF-16 surrogate becomes U+FFFD. JSON, MongoDB's UTF-8 storage and the
 * browser would each do that on their own at different moments, so without this the live
 * view, the stored turn and the rebuilt model context disagree on such a character.
 */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

export function wellFormed(text: string): string {
  const native = (text as { toWellFormed?: () => string }).toWellFormed;
  return native ? native.call(text) : text.replace(LONE_SURROGATE, "\uFFFD");
}
