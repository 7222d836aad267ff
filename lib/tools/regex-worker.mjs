// Runs grep patterns over file texts off the main thread. JavaScript regular expressions
// cannot be interrupted, so a pattern that backtracks for minutes would freeze every chat
// if it ran on the server's event loop; here the pool can terminate the worker instead.
// Plain JavaScript on purpose: it must load in a bare worker thread without a TS loader.
import { parentPort } from "node:worker_threads";

parentPort.on("message", ({ id, pattern, flags, files, maxMatches, maxLineChars }) => {
  const regex = new RegExp(pattern, flags);
  const matches = [];
  let capped = false;
  scan: for (const file of files) {
    const lines = file.text.split(/\r?\n/);
    if (lines.length > 1 && lines[lines.length - 1] === "") lines.pop();
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
  parentPort.postMessage({ id, matches, capped });
});
