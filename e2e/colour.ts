import type { ElementHandle, Locator } from "@playwright/test";

/**
 * Colours as the browser rendered them. Computed styles may come back as oklch(), lab()
 * or color() (Tailwind 4 writes oklch); painting one pixel on a canvas turns any of them
 * into sRGB bytes, which is what contrast is defined on.
 */
export interface Rendered {
  color: [number, number, number];
  background: [number, number, number];
}

/**
 * The element's text colour and the background it is painted on: its own and its
 * ancestors' backgrounds, translucent ones blended over the first opaque one below.
 */
export function renderedColours(target: Locator | ElementHandle): Promise<Rendered> {
  return (target as Locator).evaluate((el) => {
    const canvas = document.createElement("canvas");
    canvas.width = canvas.height = 1;
    const ctx = canvas.getContext("2d", { willReadFrequently: true })!;
    const rgba = (css: string) => {
      ctx.clearRect(0, 0, 1, 1);
      ctx.fillStyle = "#000";
      ctx.fillStyle = css;
      ctx.fillRect(0, 0, 1, 1);
      return Array.from(ctx.getImageData(0, 0, 1, 1).data) as [number, number, number, number];
    };
    const layers: [number, number, number, number][] = [];
    let base: [number, number, number] = [255, 255, 255];
    for (let node: Element | null = el; node; node = node.parentElement) {
      const bg = rgba(getComputedStyle(node).backgroundColor);
      if (bg[3] === 255) {
        base = [bg[0], bg[1], bg[2]];
        break;
      }
      if (bg[3] > 0) layers.push(bg);
    }
    const over = (below: [number, number, number], [r, g, b, a]: [number, number, number, number]) => {
      const k = a / 255;
      return [r * k + below[0] * (1 - k), g * k + below[1] * (1 - k), b * k + below[2] * (1 - k)] as [number, number, number];
    };
    const background = layers.reverse().reduce(over, base);
    const fg = over(background, rgba(getComputedStyle(el).color));
    return { color: fg.map(Math.round) as [number, number, number], background: background.map(Math.round) as [number, number, number] };
  });
}

/** WCAG relative luminance of an sRGB colour, 0 (black) to 1 (white). */
export function luminance([r, g, b]: readonly number[]): number {
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r!) + 0.7152 * lin(g!) + 0.0722 * lin(b!);
}

/** WCAG contrast ratio between two colours, 1 to 21. */
export function contrast(a: readonly number[], b: readonly number[]): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}
