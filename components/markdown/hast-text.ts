import type { Element, ElementContent, Root } from "hast";

/** Plain text of a hast subtree: what a code block's copy button copies after highlighting split it into spans. */
export function hastText(node: Root | Element | ElementContent): string {
  if (node.type === "text") return node.value;
  if ("children" in node) {
    let out = "";
    for (const child of node.children) out += hastText(child as ElementContent);
    return out;
  }
  return "";
}

/** The language named by a fenced block (`language-ts` class on its <code>), if any. */
export function codeLanguage(pre: Element): string | null {
  const code = pre.children.find((c): c is Element => c.type === "element" && c.tagName === "code");
  const classes = code?.properties.className;
  if (!Array.isArray(classes)) return null;
  for (const cls of classes) {
    if (typeof cls === "string" && cls.startsWith("language-")) return cls.slice("language-".length);
  }
  return null;
}
