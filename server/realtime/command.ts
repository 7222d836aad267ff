import { toAppError } from "@/server/errors";
import { commandSchemas, type Ack, type Issue } from "@/lib/contracts";
import type { AppSocket, CommandInput, CommandName, CommandResult } from "./types";

type Handler<K extends CommandName> = (input: CommandInput<K>) => Promise<CommandResult<K>> | CommandResult<K>;

export interface CommandGuard {
  /** False when the connection is over its rate limit. */
  allow(): boolean;
  log?: { error(msg: string, meta?: object): void };
}

/**
 * Registers one acknowledged command: validate (zod, once, here at the edge), act, and
 * answer with an `Ack`. Thrown `AppError`s become their code; anything else becomes
 * "internal" with a generic sentence (details go to the log, not to the browser).
 */
export function onCommand<K extends CommandName>(socket: AppSocket, name: K, guard: CommandGuard, handler: Handler<K>): void {
  const listener = async (raw: unknown, ack: unknown) => {
    const reply = (result: Ack<CommandResult<K>>) => {
      if (typeof ack === "function") ack(result);
    };
    if (!guard.allow()) {
      reply({ ok: false, code: "rate_limited", message: "Too many requests; slow down and try again in a moment." });
      return;
    }
    const parsed = commandSchemas[name].safeParse(raw);
    if (!parsed.success) {
      const issues: Issue[] = parsed.error.issues.slice(0, 20).map((i) => ({ path: i.path.join("."), message: i.message }));
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
  (socket.on as (event: string, fn: (raw: unknown, ack: unknown) => void) => void)(name, (raw, ack) => void listener(raw, ack));
}
