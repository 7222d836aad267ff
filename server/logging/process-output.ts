import { formatWithOptions, stripVTControlCharacters } from "node:util";
import type { ServerLogger } from "@/server/log";

type ConsoleMethod = "debug" | "log" | "info" | "warn" | "error" | "trace";

const LEVEL_OF: Record<ConsoleMethod, "debug" | "info" | "warn" | "error"> = {
  debug: "debug",
  log: "info",
  info: "info",
  warn: "warn",
  error: "error",
  trace: "debug",
};

/**
 * Sends what the process writes besides our own messages through the logger, so that in
 * JSON mode every stderr line is a JSON object: Next.js (and any library) prints with
 * `console.*`, Node prints its warnings, and an uncaught exception prints its stack and
 * exits. Only for JSON: at a terminal their own output is what a person expects.
 */
export function routeProcessOutput(log: ServerLogger): void {
  for (const method of Object.keys(LEVEL_OF) as ConsoleMethod[]) {
    const level = LEVEL_OF[method];
    console[method] = (...args: unknown[]) => log[level](...consoleLine(args));
  }
  // Node's own printer is a `warning` listener; replacing it keeps each warning one line.
  process.removeAllListeners("warning");
  process.on("warning", (warning) => log.warn(warning.message, { warning: warning.name, stack: warning.stack }));
  // As Node does without a handler (stack to stderr, exit code 1), but as a log line.
  process.on("uncaughtException", (error, origin) => {
    log.error(`${origin === "unhandledRejection" ? "Unhandled rejection" : "Uncaught exception"}, stopping`, { err: error });
    process.exit(1);
  });
}

/**
 * A console call's arguments as a message, and the first Error among them as `err`.
 * Colour codes are dropped: Next.js colours its messages when it believes a terminal (or
 * FORCE_COLOR) is there, and in a JSON field they are only noise to grep through.
 */
export function consoleLine(args: unknown[]): [string, object | undefined] {
  const error = args.find((arg): arg is Error => arg instanceof Error);
  const rest = error ? args.filter((arg) => arg !== error) : args;
  const msg = rest.length > 0 ? formatWithOptions({ colors: false }, ...rest) : (error?.message ?? "");
  return [stripVTControlCharacters(msg), error ? { err: error } : undefined];
}
