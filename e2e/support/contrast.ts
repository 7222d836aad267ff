import type { Page } from "@playwright/test";
import { contrast, renderedColours } from "../colour";

/**
 * Every visible element with text of its own whose rendered contrast is under WCAG AA
 * (4.5:1, 3:1 for large text), as "ratio "text"".
 */
export async function lowContrast(page: Page): Promise<string[]> {
  const handles = await page.locator("body *:visible").elementHandles();
  const failures: string[] = [];
  for (const handle of handles) {
    const info = await handle.evaluate((node) => {
      const el = node as Element;
      const own = Array.from(el.childNodes)
        .filter((n) => n.nodeType === Node.TEXT_NODE)
        .map((n) => n.textContent ?? "")
        .join("")
        .trim();
      const style = getComputedStyle(el);
      const disabled = (el as HTMLButtonElement).disabled === true || el.closest("[aria-disabled=true],:disabled") !== null;
      const box = el.getBoundingClientRect();
      // Screen-reader-only text (Next's route announcer too) is not seen.
      const hidden =
        el.closest(".sr-only,[aria-hidden=true],next-route-announcer") !== null ||
        Number(style.opacity) === 0 ||
        box.width <= 1 ||
        box.height <= 1;
      const size = parseFloat(style.fontSize);
      const bold = Number(style.fontWeight) >= 700;
      return { own, skip: disabled || hidden || own === "", large: size >= 24 || (bold && size >= 18.66) };
    });
    if (info.skip) continue;
    const colours = await renderedColours(handle);
    const ratio = contrast(colours.color, colours.background);
    if (ratio < (info.large ? 3 : 4.5)) failures.push(`${ratio.toFixed(2)}:1 "${info.own.slice(0, 40)}"`);
  }
  return failures;
}
