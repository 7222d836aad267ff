// Extracts the text of a PDF with pdf.js on a thread of its own (see pdf-text.ts). Plain
// JavaScript: it needs no TypeScript loader in a bare worker thread.
import { parentPort, workerData } from "node:worker_threads";
import { getDocument } from "pdfjs-dist/legacy/build/pdf.mjs";

const { data, maxPages, maxChars } = workerData;

try {
  // No eval (a font program cannot run code), no system fonts, no console noise.
  const task = getDocument({ data, isEvalSupported: false, useSystemFonts: false, verbosity: 0 });
  const doc = await task.promise;
  const pages = [];
  let chars = 0;
  let cut = null;
  for (let n = 1; n <= doc.numPages; n++) {
    if (n > maxPages) {
      cut = "pages";
      break;
    }
    const page = await doc.getPage(n);
    const content = await page.getTextContent();
    let text = "";
    for (const item of content.items) {
      if (typeof item.str !== "string") continue;
      text += item.str;
      if (item.hasEOL) text += "\n";
    }
    page.cleanup();
    text = `[page ${n}]\n${text.trim()}`;
    if (chars + text.length > maxChars) {
      pages.push(text.slice(0, Math.max(0, maxChars - chars)));
      cut = "size";
      break;
    }
    chars += text.length + 2;
    pages.push(text);
  }
  const numPages = doc.numPages;
  await doc.destroy();
  parentPort.postMessage({ ok: true, text: pages.join("\n\n"), numPages, cut });
} catch (error) {
  parentPort.postMessage({ ok: false, message: error instanceof Error ? error.message : String(error) });
}
