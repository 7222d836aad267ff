import type { BrowserContext, Page } from "@playwright/test";
import { createModels, type Models } from "../../models";
import { openConnection } from "../../server/db/connect";

/** Runs `fn` with models on a connection of our own to the browser tests' app database. */
export async function withModels<T>(fn: (models: Models) => Promise<T>): Promise<T> {
  const connection = await openConnection(new URL("delegate_e2e", process.env.E2E_MONGODB_URI).toString());
  try {
    return await fn(createModels(connection));
  } finally {
    await connection.close();
  }
}

/** The person this browser is to the app (single mode: the signed `dlg_uid` cookie, minted on the first visit). */
export async function browserOwnerId(page: Page, context: BrowserContext): Promise<string> {
  await page.goto("/");
  const identity = (await context.cookies()).find((c) => c.name === "dlg_uid")!.value;
  return identity.slice(0, identity.lastIndexOf("."));
}
