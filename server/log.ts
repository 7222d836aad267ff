import type { Logger } from "@/lib/log";

export type { Logger };

/** The server's logger: one line per message, JSON metadata, to stderr. */
export function createLogger(quiet = false): Logger {
  const line = (level: string, msg: string, meta?: object) =>
    process.stderr.write(`[delegate] ${level} ${msg}${meta ? ` ${JSON.stringify(meta)}` : ""}\n`);
  return {
    info: (msg, meta) => !quiet && line("info", msg, meta),
    warn: (msg, meta) => line("warn", msg, meta),
    error: (msg, meta) => line("error", msg, meta),
  };
}
