import { toAppError } from "@/server/errors";
import { commandSchemas, describeIssues, type Ack } from "@/lib/contracts";
import type { AppSocket, CommandInput, CommandName, CommandResult } from "./types";
import type { Logger } from "@/lib/log";

type Handler<K extends CommandName> = (input: CommandInput<K>) => Promise<CommandResult<K>> | CommandResult<K>;

export interface CommandGuard {
  /** False when the connection is over its rate limit (a promise when a shared store is asked). */
  allow(): boolean | Promise<boolean>;
  log?: Pick<Logger, "error">;
}

/**
 * Registers one acknowledged command: validate (zod, once, here at the edge), act, and
 * answer with an `Ack`. Thrown `AppError`s become their code; anything else becomes
 * "internal" with a generic sentence (details go to the log, not to the browser).
 */
export function onCommand<K extends CommandName>(socket: AppSocket, name: K, guard: CommandGuard, handler: Handler<K>): void {
  const listener = async (args: unknown[]) => {
    // The acknowledgement is the last argument when it is a function; a client that
    // leaves out the input (emit(name, ack)) or adds extras still gets an answer.
    const ack = typeof args.at(-1) === "function" ? (args.at(-1) as (r: unknown) => void) : undefined;
    const inputs = ack ? args.slice(0, -1) : args;
    const reply = (result: Ack<CommandResult<K>>) => ack?.(result);
    if (inputs.length > 1) {
      reply({ ok: false, code: "bad_request", message: `Invalid ${name} request: send one input object and an acknowledgement.` });
      return;
    }
    const raw = inputs[0];
    const allowed = await Promise.resolve()
      .then(() => guard.allow())
      .catch((error: unknown) => {
        // The limiters fall back to memory on their own; one that still fails refuses.
        guard.log?.error(`rate limit for ${name} failed`, { error: String(error) });
        return false;
      });
    if (!allowed) {
      reply({ ok: false, code: "rate_limited", message: "Too many requests; slow down and try again in a moment." });
      return;
    }
    const parsed = commandSchemas[name].safeParse(raw);
    if (!parsed.success) {
      const issues = describeIssues(parsed.error.issues);
      const first = issues[0];
      reply({
        ok: false,
        code: "bad_request",
        message: first ? `Invalid ${name} request: ${first.path ? `${first.path} ` : ""}${first.message}.` : `Invalid ${name} request.`,
        issues,
      });
      return;
    }
    try {
      const data = await handler(parsed.data as CommandInput<K>);
      reply({ ok: true, data });
    } catch (error) {
      const known = toAppError(error);
      if (known) {
        const error = known;
        reply({ ok: false, code: error.code, message: error.message, ...(error.issues ? { issues: error.issues } : {}) });
      } else {
        guard.log?.error(`command ${name} failed`, { error: error instanceof Error ? error.stack : String(error) });
        reply({ ok: false, code: "internal", message: "Something went wrong on the server; nothing was changed." });
      }
    }
  };
  // The typed `on` cannot express "validated here": the raw payload is unknown until parsed.
  (socket.on as (event: string, fn: (...args: unknown[]) => void) => void)(name, (...args) => void listener(args));
}
