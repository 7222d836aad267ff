import type { NoticeKind, NotificationPayload, NotifyLevel } from "@/lib/contracts";
import { chatLink } from "./chat-link";
import type { Notice } from "./notice";

const TITLE_CHARS = 80;
const TOOL_CHARS = 60;
const BODY_CHARS = 200;
// eslint-disable-next-line no-control-regex -- control characters are what this strips
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]+/g;

/**
 * Untrusted text (a chat title, a model's words) as a notification may show it: control
 * and direction-override characters become spaces (a notification is plain text: no line
 * may be forged, no text reversed), runs of space shrink, and it is cut to `max` characters.
 */
export function plainText(text: string, max: number): string {
  const clean = text.replace(CONTROLS, " ").replace(/\s+/g, " ").trim();
  // By code points: a cut through a surrogate pair would show a replacement character.
  const chars = Array.from(clean);
  return chars.length <= max ? clean : `${chars.slice(0, max - 1).join("")}…`;
}

/** Whether a person at `level` hears of a `kind`. */
export function wants(level: NotifyLevel, kind: NoticeKind): boolean {
  if (level === "off") return false;
  return level === "all" || kind === "approval" || kind === "input";
}

/** A push's urgency: what waits for the person should wake a phone, an answer can wait for it. */
export function urgencyOf(kind: NoticeKind): "high" | "normal" {
  return kind === "approval" || kind === "input" ? "high" : "normal";
}

/**
 * The notification of a chat's notice, for whoever is told. Its tag names the chat, the
 * turn, the kind and the waiting call, so the page's notification and the push of the
 * same moment replace each other instead of showing twice.
 */
export function notificationOf(sessionId: string, chatTitle: string, notice: Notice): NotificationPayload {
  const chat = plainText(chatTitle, TITLE_CHARS) || "a chat";
  const tool = plainText(notice.tool ?? "", TOOL_CHARS) || "a tool";
  const detail = plainText(notice.detail ?? "", BODY_CHARS);
  const worded: Record<NoticeKind, { title: string; body: string }> = {
    finished: { title: `Delegate: turn finished in ${chat}`, body: "The answer is ready." },
    failed: { title: `Delegate: turn failed in ${chat}`, body: detail || "The turn stopped with an error." },
    approval: { title: `Approval needed: ${tool} in ${chat}`, body: detail || `An agent asks to run ${tool}.` },
    input: { title: `Input needed: ${tool} in ${chat}`, body: detail || `${tool} asks you a question.` },
  };
  const tag = [sessionId, notice.turnId, notice.kind, notice.callId].filter(Boolean).join(":");
  return { ...worded[notice.kind], tag, url: chatLink(sessionId, notice.turnId, notice.runId) };
}
