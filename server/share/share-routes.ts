import type { IncomingMessage, ServerResponse } from "node:http";
import { AppError, describeIssues, shareCreateBody, type ShareViewer } from "@/lib/contracts";
import type { Logger } from "@/lib/log";
import { readBody } from "@/server/http/body";
import { originAllowed } from "@/server/http/origin";
import type { SessionService } from "@/server/sessions/session-service";
import type { ResolvedShare, ShareService } from "./share-service";
import { errorAnswer } from "@/server/http/error-answer";

/**
 * Share links over HTTP. The owner's routes (list, create, revoke) sit behind the app's
 * sign-in like the rest of the API and check ownership in the service. The viewer's reads
 * (`/api/shared/<token>/…`: a tool call's whole output, the inspector's model calls when
 * the owner allowed it) and the page `/s/<token>` come before the sign-in gate: a public
 * link needs none, any other needs a sign-in of this instance when it has a login.
 */
export interface ShareHttpDeps {
  shares: ShareService;
  sessions: SessionService;
  allowedOrigins: readonly string[];
  /** The sign-in these cookies carry; null when none is valid and the instance has a login ({} without one). */
  viewer(cookieHeader: string | undefined): Promise<ShareViewer | null>;
  log?: Pick<Logger, "error">;
}

const MAX_BODY_BYTES = 10_000;

const LINKS_PATH = /^\/api\/sessions\/([A-Za-z0-9_-]{1,64})\/shares$/;
const REVOKE_PATH = /^\/api\/sessions\/([A-Za-z0-9_-]{1,64})\/shares\/([A-Za-z0-9_-]{1,64})\/revoke$/;
const VIEWER_PATH = /^\/api\/shared\/([^/]{1,200})(\/.*)?$/;
const VIEWER_OUTPUT = /^\/tool-calls\/([^/]{1,200})$/;
const VIEWER_CALLS = /^\/model-calls$/;
const VIEWER_CALL = /^\/model-calls\/([A-Za-z0-9_-]{1,100})$/;
/** The viewer's page; the token's own shape is checked by the service. */
export const SHARE_PAGE_PATH = /^\/s\/([^/]{1,200})\/?$/;

/** The owner's routes; false when the path is not one of them. */
export async function handleShareOwnerApi(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  userId: string,
  deps: ShareHttpDeps,
): Promise<boolean> {
  const links = LINKS_PATH.exec(url.pathname);
  const revoke = REVOKE_PATH.exec(url.pathname);
  if (!links && !revoke) return false;
  const method = req.method ?? "GET";
  await answer(req, res, url, deps, async () => {
    if (method !== "GET" && !originAllowed(req, deps.allowedOrigins))
      throw new AppError("unauthorized", "Cross-site requests are not allowed.");
    if (links && method === "GET") {
      req.resume();
      return { links: await deps.shares.list(userId, links[1]!) };
    }
    if (links && method === "POST") {
      const input = parseBody(await readBody(req, MAX_BODY_BYTES));
      return deps.shares.create(userId, links[1]!, input);
    }
    req.resume();
    if (revoke && method === "POST") {
      await deps.shares.revoke(userId, revoke[1]!, revoke[2]!);
      return { linkId: revoke[2]! };
    }
    throw new AppError("not_found", "No such API route.");
  });
  return true;
}

/**
 * The viewer's side: answers `/api/shared/…`; for the page, says whether it may be served
 * ("page") or was answered here (a redirect to sign in). Anything else: "pass".
 */
export async function handleShareViewer(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  deps: ShareHttpDeps,
): Promise<"answered" | "page" | "pass"> {
  const page = SHARE_PAGE_PATH.exec(url.pathname);
  if (page) {
    let link: ResolvedShare | null = null;
    try {
      link = await deps.shares.resolve(decode(page[1]!));
    } catch {
      // Not a working link: the page itself says so (its socket gets the same not_found).
    }
    if (link && !link.public && !(await deps.viewer(req.headers.cookie))) {
      req.resume();
      res.writeHead(303, { location: `/login?next=${encodeURIComponent(url.pathname)}`, "cache-control": "no-store" });
      res.end();
      return "answered";
    }
    return "page";
  }
  const viewer = VIEWER_PATH.exec(url.pathname);
  if (!viewer) return "pass";
  req.resume();
  await answer(req, res, url, deps, async () => {
    if (req.method !== "GET") throw new AppError("not_found", "No such API route.");
    const link = await deps.shares.resolve(decode(viewer[1]!));
    if (!link.public && !(await deps.viewer(req.headers.cookie))) throw new AppError("unauthorized", "Sign in to view this shared chat.");
    const rest = viewer[2] ?? "";
    const output = VIEWER_OUTPUT.exec(rest);
    if (output) {
      const turnId = url.searchParams.get("turn") ?? undefined;
      const runId = url.searchParams.get("run") || null;
      return { response: await deps.sessions.toolOutput(link.ownerId, link.sessionId, decode(output[1]!), { turnId, runId }) };
    }
    // The inspector is the owner's choice: without it, its reads do not exist for this link.
    if (!link.inspector) throw new AppError("not_found", "No such API route.");
    if (VIEWER_CALLS.test(rest)) {
      const turnId = url.searchParams.get("turn");
      if (!turnId || !/^[A-Za-z0-9_-]{1,100}$/.test(turnId)) throw new AppError("bad_request", "Name the turn: ?turn=<turn id>.");
      return { calls: await deps.sessions.modelCalls(link.ownerId, link.sessionId, turnId) };
    }
    const call = VIEWER_CALL.exec(rest);
    if (call) return { call: await deps.sessions.modelCall(link.ownerId, link.sessionId, call[1]!) };
    throw new AppError("not_found", "No such API route.");
  });
  return "answered";
}

function parseBody(text: string) {
  let raw: unknown;
  try {
    raw = text.trim() ? JSON.parse(text) : {};
  } catch {
    throw new AppError("bad_request", 'Send JSON like {"expiresIn": "7d", "inspector": false, "public": false}.');
  }
  const parsed = shareCreateBody.safeParse(raw);
  if (!parsed.success) {
    const issues = describeIssues(parsed.error.issues);
    throw new AppError(
      "bad_request",
      `Invalid share link: ${issues[0]?.path ? `${issues[0].path} ` : ""}${issues[0]?.message ?? ""}`.trim(),
      issues,
    );
  }
  return parsed.data;
}

function decode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    throw new AppError("bad_request", "The address is not valid percent-encoding.");
  }
}

async function answer(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  deps: ShareHttpDeps,
  act: () => Promise<unknown>,
): Promise<void> {
  let status = 200;
  let body: unknown;
  try {
    body = await act();
  } catch (error) {
    ({ status, body } = errorAnswer(error, "share", url.pathname, deps.log));
  }
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
  res.end(JSON.stringify(body));
}
