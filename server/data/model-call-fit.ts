import type { ModelCallRecord } from "@/lib/contracts";
import { bsonSize, sizeLabel, STORABLE_DOCUMENT_BYTES } from "./document-size";

/**
 * A model-call record made to fit MongoDB's document limit (document-size.ts) before it
 * is stored: each message and the tool list become a blob of their own, and the rest one
 * call document (model-call-log.ts). A part too large for its document is replaced by a
 * note saying how large it was, so the record still says what was sent and when; the
 * audit log keeps the call rather than nothing. Pure: sizes are measured, not tried.
 */

export interface FittedModelCall {
  record: ModelCallRecord;
  /** The parts replaced by a note ("message 3", "response text"); empty when the record fits whole. */
  cut: string[];
}

const note = (bytes: number) => `[not stored: ${sizeLabel(bytes)}, more than one database document holds]`;

/** The size as stored of a text (a blob's JSON, a string field). */
const stringSize = (text: string) => bsonSize({ s: text });

/** The record as it can be stored; null when even cut it would not fit (a call with that many messages). */
export function fitModelCall(record: ModelCallRecord, sessionId: string): FittedModelCall | null {
  const cut: string[] = [];
  const fits = (text: string) => stringSize(text) <= STORABLE_DOCUMENT_BYTES;

  const messages = record.request.messages.map((message, i) => {
    if (fits(JSON.stringify(message))) return message;
    cut.push(`message ${i + 1}`);
    const shrunk = {
      ...message,
      content: message.content.length < 1024 ? message.content : note(stringSize(message.content)),
      ...(message.toolCalls
        ? {
            toolCalls: message.toolCalls.map((c) => ({
              ...c,
              arguments: c.arguments.length < 1024 ? c.arguments : note(stringSize(c.arguments)),
            })),
          }
        : {}),
    };
    return shrunk;
  });
  if (!messages.every((m) => fits(JSON.stringify(m)))) return null;

  let tools = record.request.tools;
  if (!fits(JSON.stringify(tools))) {
    cut.push("tool list");
    tools = tools.map((t) => ({ name: t.name, description: note(stringSize(JSON.stringify(t))), parameters: {} }));
    if (!fits(JSON.stringify(tools))) return null;
  }

  // The call document: everything but the messages, which it names by id (as long as blobId's).
  const idLength = sessionId.length + 33;
  const callBytes = (r: Pick<ModelCallRecord, "response" | "error">) =>
    bsonSize({ ...record, ...r, request: undefined, messageIds: messages.map(() => "x".repeat(idLength)), toolsId: "x".repeat(idLength) });
  let { response, error } = record;
  if (callBytes({ response, error }) > STORABLE_DOCUMENT_BYTES) {
    const shorten = (text: string, part: string) => {
      if (text.length < 1024) return text;
      cut.push(part);
      return note(stringSize(text));
    };
    response = {
      text: shorten(response.text, "response text"),
      thinking: shorten(response.thinking, "response thinking"),
      toolCalls: response.toolCalls.map((c, i) => ({ ...c, arguments: shorten(c.arguments, `response tool call ${i + 1}`) })),
    };
    error = error === null ? null : shorten(error, "error");
    if (callBytes({ response, error }) > STORABLE_DOCUMENT_BYTES) return null;
  }

  if (cut.length === 0) return { record, cut };
  return { record: { ...record, request: { messages, tools }, response, error }, cut };
}
