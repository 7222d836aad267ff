import { Worker } from "node:worker_threads";

/**
 * A PDF's text, read by pdf.js on a worker thread: parsing a large or hostile PDF is work
 * that cannot be sliced, and on the server's thread it would hold up every chat. The
 * worker has a heap of its own and a deadline, reads at most MAX_PDF_PAGES pages and
 * MAX_PDF_TEXT_CHARS characters, and a few run at once; the rest wait their turn.
 */

export const MAX_PDF_PAGES = 500;
export const MAX_PDF_TEXT_CHARS = 4 * 1024 * 1024;
const TIMEOUT_MS = 30_000;
const MAX_HEAP_MB = 512;
const AT_ONCE = 2;

export interface PdfText {
  /** The text, page by page under `[page n]` headers, with a note when it was cut or could not be read. */
  text: string;
}

let running = 0;
const waiting: Array<() => void> = [];

/** Never throws for the PDF's sake: a PDF whose text cannot be read is still a PDF, and says so. */
export async function extractPdfText(
  bytes: Uint8Array,
  limits = { maxPages: MAX_PDF_PAGES, maxChars: MAX_PDF_TEXT_CHARS },
): Promise<PdfText> {
  if (running < AT_ONCE) running++;
  else await new Promise<void>((resolve) => waiting.push(resolve));
  try {
    const answer = await inWorker(bytes, limits);
    if (!answer.ok) return { text: `[The text of this PDF could not be read: ${answer.message}]` };
    const notes: string[] = [];
    if (answer.cut === "pages") notes.push(`[Only the first ${limits.maxPages} of ${answer.numPages} pages were read.]`);
    if (answer.cut === "size") notes.push(`[The text was cut at ${limits.maxChars} characters.]`);
    if (answer.text.replace(/\[page \d+\]/g, "").trim() === "")
      notes.push("[This PDF has no text layer (a scan or drawings only); its pages could not be read as text.]");
    return { text: [answer.text, ...notes].filter(Boolean).join("\n\n") };
  } finally {
    const next = waiting.shift();
    if (next) next();
    else running--;
  }
}

type Answer = { ok: true; text: string; numPages: number; cut: "pages" | "size" | null } | { ok: false; message: string };

function inWorker(bytes: Uint8Array, limits: { maxPages: number; maxChars: number }): Promise<Answer> {
  return new Promise((resolve) => {
    // A copy: pdf.js takes ownership of the array it is given.
    const data = new Uint8Array(bytes);
    const worker = new Worker(new URL("./pdf-text.worker.mjs", import.meta.url), {
      workerData: { data, ...limits },
      transferList: [data.buffer],
      resourceLimits: { maxOldGenerationSizeMb: MAX_HEAP_MB },
    });
    let settled = false;
    const settle = (answer: Answer) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(answer);
      void worker.terminate();
    };
    const timer = setTimeout(() => settle({ ok: false, message: `reading it took more than ${TIMEOUT_MS / 1000} s` }), TIMEOUT_MS);
    worker.once("message", settle);
    worker.once("error", (error: Error & { code?: string }) =>
      settle({ ok: false, message: error.code === "ERR_WORKER_OUT_OF_MEMORY" ? "it needs more memory than allowed" : error.message }),
    );
    worker.once("exit", (code) => settle({ ok: false, message: `the reader stopped (exit code ${code})` }));
  });
}
