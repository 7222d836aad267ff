/**
 * Reading a child app's stderr, which in production is the server's JSON log
 * (docs/logs.md): one pino object a line.
 */

/** A `data` listener that hands `onLine` each whole line, holding a partial one until its end arrives. */
export function lineSplitter(onLine: (line: string) => void): (chunk: Buffer | string) => void {
  let pending = "";
  return (chunk) => {
    pending += chunk.toString();
    const lines = pending.split("\n");
    pending = lines.pop() ?? "";
    for (const line of lines) if (line.trim() !== "") onLine(line);
  };
}

export interface LogRecord {
  level: string;
  msg: string;
  time?: string;
  [field: string]: unknown;
}

/** The line as a log record, or undefined when it is not one (not JSON, or no level and msg). */
export function parseLogLine(line: string): LogRecord | undefined {
  try {
    const value: unknown = JSON.parse(line);
    if (typeof value !== "object" || value === null) return undefined;
    const record = value as Record<string, unknown>;
    return typeof record.level === "string" && typeof record.msg === "string" ? (record as LogRecord) : undefined;
  } catch {
    return undefined;
  }
}

const ROUTINE = new Set(["level", "time", "msg", "pid", "hostname", "name"]);

/**
 * A line as a person reads it in a failing test's message: `warn  message {fields}`, with
 * an error's stack on lines of its own. A line that is not a log record passes unchanged.
 */
export function readableLogLine(line: string): string {
  const record = parseLogLine(line);
  if (!record) return line;
  const fields = Object.fromEntries(Object.entries(record).filter(([key]) => !ROUTINE.has(key)));
  const stack = stackOf(fields.err) ?? stackOf(fields.error);
  if (stack) {
    delete fields.err;
    if (typeof fields.error !== "string") delete fields.error;
  }
  const rest = Object.keys(fields).length > 0 ? ` ${JSON.stringify(fields)}` : "";
  return `${record.level.padEnd(5)} ${record.msg}${rest}${stack ? `\n${stack}` : ""}`;
}

function stackOf(value: unknown): string | undefined {
  if (typeof value === "object" && value !== null && typeof (value as { stack?: unknown }).stack === "string") {
    return (value as { stack: string }).stack;
  }
  return undefined;
}
