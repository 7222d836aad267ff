import type { IncomingMessage, ServerResponse } from "node:http";
import { AppError, type AttachmentRef } from "@/lib/contracts";
import { fileTooLarge } from "@/lib/attachments/limits";
import { safeAttachmentName } from "@/lib/attachments/name";
import type { Logger } from "@/lib/log";
import { closeUnread, readBodyBytes } from "@/server/http/body";
import { originAllowed } from "@/server/http/origin";
import type { AttachmentService } from "./attachment-service";
import { errorAnswer } from "@/server/http/error-answer";

/**
 * A chat's attachments over HTTP (routes in `ATTACHMENT_ROUTES`), behind the app's sign-in
 * like the rest of the API, ownership checked in the service. An upload is the file's raw
 * bytes as the body, its name in `?name=`; the browser's Content-Type is not read (the
 * store decides from the content). Its size is counted as it arrives and the upload cut
 * the moment it passes ATTACHMENT_MAX_BYTES. A download is served so that no browser runs
 * it: its type from the stored content, `nosniff`, a sandboxing CSP, and `attachment`
 * (only images `inline`).
 */
export interface AttachmentHttpDeps {
  attachments: AttachmentService;
  allowedOrigins: readonly string[];
  /** How long an upload may take to arrive whole (IMPORT_BODY_TIMEOUT_MS, as an import's). */
  bodyTimeoutMs: number;
  log?: Pick<Logger, "error">;
}

const LIST_PATH = /^\/api\/sessions\/([A-Za-z0-9_-]{1,64})\/attachments$/;
const ONE_PATH = /^\/api\/sessions\/([A-Za-z0-9_-]{1,64})\/attachments\/([A-Za-z0-9_-]{1,64})$/;
/** Longest `?name=` read; the store cuts names far shorter, keeping the extension. */
const MAX_NAME_PARAM = 4_096;

/** The attachment routes; false when the path is not one of them. */
export async function handleAttachmentApi(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  userId: string,
  deps: AttachmentHttpDeps,
): Promise<boolean> {
  const list = LIST_PATH.exec(url.pathname);
  const one = ONE_PATH.exec(url.pathname);
  if (!list && !one) return false;
  const method = req.method ?? "GET";
  const { attachments } = deps;
  try {
    if (method !== "GET" && method !== "HEAD" && !originAllowed(req, deps.allowedOrigins))
      throw new AppError("unauthorized", "Cross-site requests are not allowed.");
    if (list && method === "POST") {
      sendJson(res, 200, { attachment: await upload(req, res, url, userId, list[1]!, deps) });
      return true;
    }
    // No other route reads a body.
    req.resume();
    if (list && method === "GET") {
      sendJson(res, 200, { attachments: await attachments.list(userId, list[1]!) });
      return true;
    }
    if (one && method === "GET") {
      const { ref, bytes } = await attachments.read(userId, one[1]!, one[2]!);
      download(res, ref, bytes);
      return true;
    }
    if (one && method === "DELETE") {
      await attachments.delete(userId, one[1]!, one[2]!);
      sendJson(res, 200, { attachmentId: one[2]! });
      return true;
    }
    throw new AppError("not_found", "No such API route.");
  } catch (error) {
    const { status, body } = errorAnswer(error, "attachment", url.pathname, deps.log);
    closeUnread(req, res);
    sendJson(res, status, body);
  }
  return true;
}

async function upload(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  userId: string,
  sessionId: string,
  deps: AttachmentHttpDeps,
): Promise<AttachmentRef> {
  const raw = url.searchParams.get("name");
  if (raw === null || raw.length > MAX_NAME_PARAM)
    throw new AppError("bad_request", "Name the file: ?name=<file name> (at most 4096 characters).");
  // Before a byte of the body is read: nobody uploads into a chat that is not theirs.
  await deps.attachments.owned(userId, sessionId);
  const { maxBytes } = deps.attachments.limits;
  const bytes = await readBodyBytes(req, maxBytes, deps.bodyTimeoutMs, fileTooLarge(safeAttachmentName(raw), maxBytes));
  // Sniffing, a PDF's text and the writes may outlast the idle timeout with nothing sent.
  res.setTimeout(0);
  return deps.attachments.put(userId, sessionId, { name: raw, bytes });
}

function download(res: ServerResponse, ref: AttachmentRef, bytes: Buffer): void {
  const disposition = ref.kind === "image" ? "inline" : "attachment";
  res.writeHead(200, {
    "content-type": ref.kind === "text" ? "text/plain; charset=utf-8" : ref.type,
    "content-length": bytes.length,
    "content-disposition": contentDisposition(disposition, ref.name),
    "x-content-type-options": "nosniff",
    // Opened directly, the file is a sandboxed document: no script, no same origin.
    "content-security-policy": "sandbox",
    "cache-control": "private, no-store",
  });
  res.end(bytes);
}

/**
 * `inline|attachment; filename="<ASCII fallback>"; filename*=UTF-8''<name>` (RFC 6266 with
 * RFC 5987's encoding): old clients read the plain fallback, others the exact name.
 */
export function contentDisposition(disposition: "inline" | "attachment", name: string): string {
  const fallback =
    name
      .normalize("NFKD")
      .replace(/[^\x20-\x7e]/g, "")
      .replace(/["\\%;]/g, "_")
      .trim() || "file";
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `${disposition}; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
  res.end(JSON.stringify(body));
}
