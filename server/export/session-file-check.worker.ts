import { parentPort, workerData } from "node:worker_threads";
import { AppError } from "@/lib/contracts";
import { parseSessionFile } from "./session-import";

/**
 * The check of an imported session file (parseSessionFile), run on a thread of its own
 * (see check-off-thread.ts). It answers with the file as checked, or the refusal.
 */

const { text } = workerData as { text: string };
try {
  parentPort!.postMessage({ ok: true, file: await parseSessionFile(text) });
} catch (error) {
  parentPort!.postMessage(
    error instanceof AppError
      ? { ok: false, code: error.code, message: error.message, issues: error.issues }
      : { ok: false, code: "internal", message: error instanceof Error ? error.message : String(error) },
  );
}
