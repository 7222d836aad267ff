// The worker thread's entry: node does not load TypeScript by itself, so tsx loads the check.
import { tsImport } from "tsx/esm/api";

await tsImport("./session-file-check.worker.ts", import.meta.url);
