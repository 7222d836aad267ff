import { constants } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";
import { ToolError } from "./types";

const SNIFF_BYTES = 8192;

/**
 * Opens a file only if it is a regular file. A blocking open of a FIFO waits for a writer
 * while holding one of libuv's four file threads, and cancelling does not free it: four
 * such calls stop every file operation of the server. Callers check with lstat/stat first;
 * this is the second guard against a file swapped in between: `O_NONBLOCK` makes the open
 * of a FIFO or device return at once (it changes nothing for a regular file), and the
 * handle's own fstat decides.
 */
export async function openRegularFile(file: string, shown: string): Promise<FileHandle> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
  if ((await handle.stat()).isFile()) return handle;
  await handle.close();
  throw new ToolError(`"${shown}" is not a regular file (a pipe, socket or device) and cannot be read.`);
}

/**
 * True when the start of the file looks binary: a NUL byte, or bytes that are not UTF-8.
 * Text tools refuse such files rather than pour mojibake into the model's context.
 */
export async function looksBinary(file: string, shown: string): Promise<boolean> {
  const handle = await openRegularFile(file, shown);
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, SNIFF_BYTES, 0);
    return isBinarySample(buffer.subarray(0, bytesRead));
  } finally {
    await handle.close();
  }
}

/** The check of `looksBinary` on bytes already read: only the first SNIFF_BYTES count. */
export function isBinarySample(bytes: Buffer): boolean {
  const sample = bytes.subarray(0, SNIFF_BYTES);
  if (sample.includes(0)) return true;
  try {
    // `stream: true` tolerates a multi-byte character cut by the sample's end.
    new TextDecoder("utf-8", { fatal: true }).decode(sample, { stream: true });
    return false;
  } catch {
    return true;
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
export async function* readLines(file: string, shown: string, maxLineChars: number): AsyncGenerator<Line> {
  const handle = await openRegularFile(file, shown);
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
