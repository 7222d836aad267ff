/**
 * Markup escaping. Every text run and attribute value goes through `escapeMarkup`, so no
 * model text or tool output can open, close or alter a `<SubagentExecution>` or
 * `<ToolCall>` element (model text and tool output are data, never markup): after escaping, `<` only ever starts a tag the serializer wrote,
 * and `"` only ever ends an attribute value.
 */
const NEEDS_ESCAPE = /[&<>"']/;
const ESCAPABLE = /[&<>"']/g;

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeMarkup(text: string): string {
  return NEEDS_ESCAPE.test(text) ? text.replace(ESCAPABLE, (c) => ESCAPES[c]!) : text;
}
