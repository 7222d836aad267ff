import { open } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";

const SNIFF_BYTES = 8192;

/**
 * True when the start of the file looks binary: a NUL byte, or bytes that are not UTF-8.
 * Text tools refuse such files rather than pour mojibake into the model's context.
 */
export async function looksBinary(file: string): Promise<boolean> {
  const handle = await open(file, "r");
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    const sample = buffer.subarray(0, bytesRead);
    if (sample.includes(0)) return true;
    try {
      // `stream: true` tolerates a multi-byte character cut by the sample's end.
      new TextDecoder("utf-8", { fatal: true }).decode(sample, { stream: true });
      return false;
    } catch {
      return true;
    }
  } finally {
    await handle.close();
  }
}

export interface Line {
  number: number;
  text: string;
  /** The line was longer than `maxLineChars` and was cut. */
  cut: boolean;
}

/**
 * Streams a file's lines without ever holding more than one (capped) line, so a huge or
 * single-line file cannot exhaust memory. Stop early by breaking out of the loop.
 */
export async function* readLines(file: string, maxLineChars: number): AsyncGenerator<Line> {
  const handle = await open(file, "r");
  const decoder = new StringDecoder("utf8");
  const buffer = Buffer.alloc(64 * 1024);
  let pending = "";
  let cut = false;
  let number = 0;
  const take = (text: string): Line => {
    number += 1;
    const line = { number, text: text.endsWith("\r") ? text.slice(0, -1) : text, cut };
    cut = false;
    return line;
  };
  try {
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      const chunk = bytesRead === 0 ? decoder.end() : decoder.write(buffer.subarray(0, bytesRead));
      let start = 0;
      for (let nl = chunk.indexOf("\n"); nl !== -1; nl = chunk.indexOf("\n", start)) {
        pending = append(pending, chunk.slice(start, nl));
        yield take(pending);
        pending = "";
        start = nl + 1;
      }
      pending = append(pending, chunk.slice(start));
      if (bytesRead === 0) break;
    }
    if (pending !== "") yield take(pending);
  } finally {
    await handle.close();
  }

  function append(line: string, more: string): string {
    if (line.length + more.length <= maxLineChars) return line + more;
    cut = true;
    return (line + more).slice(0, maxLineChars);
  }
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
