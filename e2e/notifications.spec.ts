import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { send, startChat, waitForTurnEnd } from "./fixtures";

/**
 * Browser notifications from the page while its tab is hidden, in Chromium: the page is
 * made to read as hidden (a headless tab is always visible), notifications are allowed,
 * and what the service worker shows is read back from its registration.
 */
const FIX_PROMPT = "Fix the typo in CONTRIBUTING.md";

interface Shown {
  title: string;
  body: string;
  tag: string;
  url: string;
}

async function hiddenPage(context: BrowserContext, baseURL: string | undefined): Promise<Page> {
  await context.grantPermissions(["notifications"], { origin: new URL(baseURL!).origin });
  await context.addInitScript(() => {
    // Kept across loads of the page: a test that shows the tab keeps it shown.
    const state = { hidden: sessionStorage.getItem("test-hidden") !== "0" };
    Object.defineProperty(Document.prototype, "visibilityState", { configurable: true, get: () => (state.hidden ? "hidden" : "visible") });
    Object.defineProperty(Document.prototype, "hidden", { configurable: true, get: () => state.hidden });
    (window as unknown as { setHidden: (hidden: boolean) => void }).setHidden = (hidden) => {
      state.hidden = hidden;
      sessionStorage.setItem("test-hidden", hidden ? "1" : "0");
      document.dispatchEvent(new Event("visibilitychange"));
    };
  });
  return context.newPage();
}

function shown(page: Page): Promise<Shown[]> {
  return page.evaluate(async () => {
    const registration = await navigator.serviceWorker.ready;
    return (await registration.getNotifications()).map((n) => ({
      title: n.title,
      body: n.body,
      tag: n.tag,
      url: String((n.data as { url?: string } | null)?.url ?? ""),
    }));
  });
}

const chatPath = (url: string) => new URL(url).pathname;

test.describe("notifications", () => {
  test("a hidden tab shows a finished turn and a waiting approval, each opening its chat at the panel", async ({ context, baseURL }) => {
    const page = await hiddenPage(context, baseURL);
    const first = await startChat(page, "hello");
    await waitForTurnEnd(page);
    await expect.poll(async () => (await shown(page)).map((n) => n.title)).toContain("Delegate: turn finished in hello");
    const finished = (await shown(page)).find((n) => n.tag.endsWith(":finished"))!;
    expect(finished.body).toBe("The answer is ready.");
    const turnId = await page.getByTestId("message-assistant").last().getAttribute("data-turn-id");
    expect(new URL(finished.url, baseURL).pathname).toBe(chatPath(first));
    expect(new URL(finished.url, baseURL).hash).toBe(`#turn-${turnId}`);

    // An approval deep in the subagents: the link goes to the run whose call waits.
    const second = await startChat(page, FIX_PROMPT);
    await expect(page.getByTestId("approval-banner")).toBeVisible({ timeout: 45_000 });
    await expect.poll(async () => (await shown(page)).map((n) => n.title)).toContain(`Approval needed: file_edit in ${FIX_PROMPT}`);
    const approval = (await shown(page)).find((n) => n.tag.includes(":approval:"))!;
    expect(approval.body).toContain('says "recieve"');
    expect(new URL(approval.url, baseURL).pathname).toBe(chatPath(second));
    const runId = decodeURIComponent(new URL(approval.url, baseURL).hash.replace(/^#run-/, ""));

    // Clicking it (the worker's click handler, with the notification's link) from another page of the app.
    await page.goto("/");
    const worker = context.serviceWorkers().find((w) => new URL(w.url()).pathname === "/sw.js")!;
    await worker.evaluate(
      (url) => (self as unknown as { delegateNotifications: { openAt(url: string): Promise<unknown> } }).delegateNotifications.openAt(url),
      approval.url,
    );
    await page.waitForURL(new URL(approval.url, baseURL).href);
    // The chat opens at the card that waits, in the panel of the run that asks.
    const card = page.locator(`[id="run-${runId}"]`).getByTestId("approval-card");
    await expect(card).toBeVisible();
    await expect(card).toBeInViewport();
    await page.getByTestId("approval-card").getByTestId("approval-deny").click();
    await waitForTurnEnd(page);
  });

  test("a push reaches the worker: shown as sent, replacing the page's notification of the same moment, opening only this app", async ({
    context,
    baseURL,
  }) => {
    const page = await hiddenPage(context, baseURL);
    const origin = new URL(baseURL!).origin;
    const cdp = await context.newCDPSession(page);
    const registrations: { registrationId: string; isDeleted: boolean }[] = [];
    cdp.on("ServiceWorker.workerRegistrationUpdated", (event) => registrations.push(...event.registrations));
    await cdp.send("ServiceWorker.enable");
    await startChat(page, "hello pushed");
    await waitForTurnEnd(page);
    await expect.poll(async () => (await shown(page)).length).toBe(1);
    const [fromPage] = await shown(page);
    await expect.poll(() => registrations.some((r) => !r.isDeleted)).toBe(true);
    const registrationId = registrations.find((r) => !r.isDeleted)!.registrationId;

    // Headless Chromium has no push service: DevTools hands the worker a push as one would.
    const deliver = (data: string) => cdp.send("ServiceWorker.deliverPushMessage", { origin, registrationId, data });
    await deliver(JSON.stringify({ ...fromPage, body: "From the push service." }));
    await expect.poll(async () => (await shown(page)).map((n) => n.body)).toEqual(["From the push service."]);
    expect((await shown(page))[0]!.url).toBe(new URL(fromPage!.url, origin).href);

    // DevTools now and then drops a push it hands the worker (about one in eight here, the
    // same payload every time): each is handed again until it shows, as a push service
    // delivers at least once.
    const deliverUntilShown = (data: string, count: number) =>
      expect(async () => {
        await deliver(data);
        await expect.poll(async () => (await shown(page)).length, { timeout: 5_000 }).toBe(count);
      }).toPass({ timeout: 30_000 });
    await deliverUntilShown(JSON.stringify({ title: "Elsewhere", body: "", tag: "elsewhere", url: "https://evil.example/phish" }), 2);
    await deliverUntilShown("not json", 3);
    const all = await shown(page);
    expect(all.find((n) => n.tag === "elsewhere")!.url).toBe(`${origin}/`);
    expect(all.find((n) => n.title === "Delegate")!.body).toBe("Something in a chat needs a look.");
  });

  test("a seen tab shows nothing; with the setting off a hidden one shows nothing either", async ({ context, baseURL }) => {
    const page = await hiddenPage(context, baseURL);
    await page.goto("/");
    await page.evaluate(() => (window as unknown as { setHidden: (h: boolean) => void }).setHidden(false));
    await startChat(page, "hello seen");
    await waitForTurnEnd(page);

    await page.getByTestId("notifications-button").click();
    const panel = page.getByTestId("notifications-panel");
    await expect(panel.getByTestId("notify-level-all")).toBeChecked();
    await expect(panel.getByTestId("notify-permission")).toHaveAttribute("data-state", "granted");
    // Headless Chromium has no push service: said calmly, and the tab still notifies.
    await panel.getByTestId("notify-turn-on").click();
    await expect(panel.getByTestId("notify-note")).toContainText("no push service");
    await panel.getByTestId("notify-level-off").check();
    await expect(panel.getByTestId("notify-level-off")).toBeChecked();
    await page.keyboard.press("Escape");

    // Kept on the server: a reload reads it back.
    await page.reload();
    await page.evaluate(() => (window as unknown as { setHidden: (h: boolean) => void }).setHidden(true));
    await page.getByTestId("notifications-button").click();
    await expect(page.getByTestId("notify-level-off")).toBeChecked();
    await page.keyboard.press("Escape");
    await startChat(page, "hello unseen");
    await waitForTurnEnd(page);

    // Back on: the next turn of the same chat notifies, and it is the only notification
    // there is (the seen turn and the one while off showed none, before it).
    await page.getByTestId("notifications-button").click();
    await page.getByTestId("notify-level-all").check();
    await page.keyboard.press("Escape");
    await send(page, "hello again");
    await waitForTurnEnd(page);
    await expect.poll(async () => (await shown(page)).length).toBe(1);
    const [only] = await shown(page);
    const turnId = await page.getByTestId("message-assistant").last().getAttribute("data-turn-id");
    expect(only!.tag).toContain(`:${turnId}:finished`);
  });
});
