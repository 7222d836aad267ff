import type { ChatTurn, SessionSummary, ToolCall } from "@/lib/contracts";
import { markdownHeader, turnMarkdown } from "@/lib/export/markdown";
import { sessionFileChunks, type ExportedTurn, type ToolOutputEntry } from "@/lib/export/session-file";
import type { ChatStore, StoredChatSettings } from "@/server/data/store";
import { exportedAttachments } from "@/server/attachments/attachment-transfer";

/**
 * A chat's export, as a stream of text pieces the HTTP layer writes with backpressure:
 * the JSON session file (lib/export/session-file.ts) or a Markdown transcript. Only
 * finished turns are exported; a turn still running is left out (its file would be a
 * half turn). Per turn, the whole text of long tool outputs and the model-call records
 * are read when that turn's piece is written, not before.
 */

export type ExportFormat = "json" | "markdown";

export interface SessionExport {
  filename: string;
  contentType: string;
  chunks: AsyncIterable<string>;
}

export function exportSession(
  store: ChatStore,
  session: SessionSummary,
  turns: readonly ChatTurn[],
  format: ExportFormat,
  options: { markup?: boolean; now?: Date; settings?: StoredChatSettings; people?: ReadonlyMap<string, string> } = {},
): SessionExport {
  // One branch, in order: in the file each turn follows the one before it.
  const finished = turns.filter((t) => t.status !== "running").map(({ parentTurnId: _branch, ...turn }) => turn);
  const exportedAt = (options.now ?? new Date()).toISOString();
  const base = fileBase(session.title);
  if (format === "markdown") {
    return {
      filename: `${base}.md`,
      contentType: "text/markdown; charset=utf-8",
      chunks: (async function* () {
        yield markdownHeader(session.title, exportedAt);
        for (const turn of finished) yield turnMarkdown(turn, { markup: options.markup, people: options.people });
      })(),
    };
  }
  return {
    filename: `${base}.delegate.json`,
    contentType: "application/json; charset=utf-8",
    chunks: sessionFileChunks(
      {
        title: session.title,
        createdAt: session.createdAt,
        exportedAt,
        ...options.settings,
        people: [...(options.people ?? [])].map(([id, name]) => ({ id, name })),
      },
      exportedTurns(store, session.sessionId, finished),
      exportedAttachments(store.attachments, session.sessionId),
    ),
  };
}

/** Each turn whole, as the session file holds it: the full text of long tool outputs and every model request. */
export async function* exportedTurns(store: ChatStore, sessionId: string, turns: readonly ChatTurn[]): AsyncGenerator<ExportedTurn> {
  for (const turn of turns) {
    const toolOutputs: ToolOutputEntry[] = [];
    for (const { runId, call } of callsOf(turn)) {
      if (call.responseSize <= call.response.length) continue;
      const text = await store.loadToolOutput(sessionId, call.callId, { turnId: turn.turnId, runId });
      toolOutputs.push({ runId, callId: call.callId, text });
    }
    yield { turn, toolOutputs, modelCalls: await store.loadTurnModelCalls(sessionId, turn.turnId) };
  }
}

function* callsOf(turn: ChatTurn): Generator<{ runId: string | null; call: ToolCall }> {
  function* walk(runId: string | null, steps: ChatTurn["steps"]): Generator<{ runId: string | null; call: ToolCall }> {
    for (const step of steps) {
      for (const call of step.toolCalls) {
        yield { runId, call };
        if (call.subagent) yield* walk(call.subagent.runId, call.subagent.steps);
      }
    }
  }
  yield* walk(null, turn.steps);
}

/** A file name from the title: letters, digits and dashes only (it travels in a header). */
function fileBase(title: string): string {
  const base = title
    .normalize("NFKD")
    .replace(/[^\w\s-]/g, "")
    .trim()
    .replace(/[\s_]+/g, "-")
    .toLowerCase()
    .slice(0, 60)
    .replace(/-+$/, "");
  return base || "chat";
}
