// Runs a grep pattern over file texts off the main thread. JavaScript regular expressions
// cannot be interrupted, so a pattern that backtracks for minutes would freeze every chat
// if it ran on the server's event loop; here the caller can terminate the worker instead.
// Plain JavaScript on purpose: it must load in a bare worker thread without a TS loader.
import { parentPort, workerData } from "node:worker_threads";

const { pattern, flags, files, maxMatches, maxLineChars } = workerData;
const regex = new RegExp(pattern, flags);
const matches = [];
let capped = false;

scan: for (const file of files) {
  const lines = file.text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].length > maxLineChars ? lines[i].slice(0, maxLineChars) : lines[i];
    if (!regex.test(line)) continue;
    if (matches.length >= maxMatches) {
      capped = true;
      break scan;
    }
    matches.push({ name: file.name, number: i + 1, text: line });
  }
}

parentPort.postMessage({ matches, capped });
