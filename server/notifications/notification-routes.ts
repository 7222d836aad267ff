import type { IncomingMessage, ServerResponse } from "node:http";
import type { ZodType } from "zod";
import {
  AppError,
  NOTIFICATION_ROUTES,
  describeIssues,
  notificationSettingsSchema,
  pushSubscriptionSchema,
  pushUnsubscribeSchema,
} from "@/lib/contracts";
import type { Logger } from "@/lib/log";
import { readBody } from "@/server/http/body";
import { errorAnswer } from "@/server/http/error-answer";
import { originAllowed } from "@/server/http/origin";
import type { NotificationService } from "./notification-service";

/**
 * A person's browser notifications over HTTP, behind the app's sign-in like the rest of
 * the API (see NOTIFICATION_ROUTES): the VAPID public key, their setting, and their
 * browsers' push subscriptions. A change needs a same-origin request.
 */
export interface NotificationHttpDeps {
  notifications: NotificationService;
  allowedOrigins: readonly string[];
  log?: Pick<Logger, "error">;
}

/** A subscription is under 3 KB (a 2 KB endpoint and two keys). */
const MAX_BODY_BYTES = 4_000;
const PATHS = new Set<string>(Object.values(NOTIFICATION_ROUTES));

/** Answers `/api/notifications/…`; false for any other path. */
export async function handleNotificationApi(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  personId: string,
  deps: NotificationHttpDeps,
): Promise<boolean> {
  if (!url.pathname.startsWith("/api/notifications/") && url.pathname !== "/api/notifications") return false;
  const { notifications } = deps;
  const method = req.method ?? "GET";
  const route = `${method} ${url.pathname}`;
  let status = 200;
  let result: unknown;
  try {
    if (!PATHS.has(url.pathname)) throw new AppError("not_found", "No such API route.");
    if (method !== "GET" && !originAllowed(req, deps.allowedOrigins))
      throw new AppError("unauthorized", "Cross-site requests are not allowed.");
    if (route === `GET ${NOTIFICATION_ROUTES.key}`) {
      req.resume();
      result = { publicKey: await notifications.publicKey() };
    } else if (route === `GET ${NOTIFICATION_ROUTES.settings}`) {
      req.resume();
      result = { level: await notifications.level(personId) };
    } else if (route === `PUT ${NOTIFICATION_ROUTES.settings}`) {
      const { level } = await body(req, notificationSettingsSchema, 'Send JSON like {"level": "all"}.');
      result = { level: await notifications.setLevel(personId, level) };
    } else if (route === `POST ${NOTIFICATION_ROUTES.subscribe}`) {
      await notifications.subscribe(personId, await body(req, pushSubscriptionSchema, "Send the browser's PushSubscription as JSON."));
      result = { subscribed: true };
    } else if (route === `POST ${NOTIFICATION_ROUTES.unsubscribe}`) {
      const { endpoint } = await body(req, pushUnsubscribeSchema, 'Send JSON like {"endpoint": "https://…"}.');
      result = { removed: await notifications.unsubscribe(personId, endpoint) };
    } else {
      throw new AppError("not_found", "No such API route.");
    }
  } catch (error) {
    ({ status, body: result } = errorAnswer(error, "notifications", url.pathname, deps.log));
    if (!req.complete) res.setHeader("connection", "close");
  }
  res.writeHead(status, { "content-type": "application/json; charset=utf-8", "cache-control": "no-store" });
  res.end(JSON.stringify(result));
  return true;
}

async function body<T>(req: IncomingMessage, schema: ZodType<T>, hint: string): Promise<T> {
  const text = await readBody(req, MAX_BODY_BYTES);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new AppError("bad_request", hint);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issues = describeIssues(parsed.error.issues);
    throw new AppError("bad_request", `${issues[0]?.path ?? ""} ${issues[0]?.message ?? ""}`.trim() || hint, issues);
  }
  return parsed.data;
}
