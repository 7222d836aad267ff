import { expect, test } from "@playwright/test";
import { startCaddy } from "../test/support/cluster/caddy";
import { startCluster, type Cluster } from "../test/support/cluster/cluster";
import { openStoredView, runsOf } from "../test/support/cluster/viewer";
import { lastAssistant, panelStates, send, shot, waitForTurnEnd } from "./fixtures";

/**
 * Scale-out (docs/scale-out.md) in a browser: two real app processes of their own (beside the one the global
 * setup starts) on one Debian redis-server and the e2e database server. The person's chat
 * runs its turn on a; a tab of the same browser (same cookie: all processes share the
 * secret) opens it on b and watches it live. Without the scale-out mechanism b sees no
 * live events and the bounded waits fail. The last test puts Debian's Caddy with the
 * deployment's Caddyfile in front of both and kills one.
 */
const PROMPT = "Investigate the open bugs and the release plan";

let cluster: Cluster;

test.beforeAll(async () => {
  test.setTimeout(240_000);
  const server = process.env.E2E_MONGODB_URI;
  if (!server) throw new Error("E2E_MONGODB_URI is not set (e2e/global-setup.ts sets it)");
  cluster = await startCluster({
    processes: 2,
    mongoUri: new URL(`delegate_scale_e2e_${Date.now()}`, server).toString(),
    env: { DEMO_CHUNK_DELAY_MS: "40", DEMO_REPLY_DELAY_MS: "700" },
  });
});

test.afterAll(async () => {
  await cluster?.close();
});

test("a browser on process b watches the turn process a runs, live, and a reload on b shows the stored turn", async ({ browser }) => {
  test.setTimeout(120_000);
  const [a, b] = [cluster.node("a"), cluster.node("b")];
  const context = await browser.newContext();
  const onA = await context.newPage();
  await onA.goto(`${a.baseUrl}/`);
  await send(onA, PROMPT);
  await onA.waitForURL(/\/c\/[A-Za-z0-9_-]+$/);
  const chatPath = new URL(onA.url()).pathname;
  const sessionId = chatPath.split("/").at(-1)!;

  const onB = await context.newPage();
  await onB.goto(`${b.baseUrl}${chatPath}`);
  // Live on b: the panels run there while a runs the turn.
  await expect(onB.locator('[data-testid="subagent-panel"][data-status="running"]').first()).toBeVisible({ timeout: 20_000 });
  await shot(onB, "scale-out-b-live");
  await waitForTurnEnd(onB);
  await expect(lastAssistant(onB)).toHaveAttribute("data-status", "completed");
  await expect(onB.locator('[data-testid="subagent-panel"][data-status="success"]')).toHaveCount(2);
  const live = await panelStates(onB);
  const answer = await lastAssistant(onB).innerText();

  // The tab on a, which sent it, shows the same.
  await waitForTurnEnd(onA);
  expect(await panelStates(onA)).toEqual(live);

  // A reload on b: what the database holds, shown the same way.
  await onB.reload();
  await expect(onB.getByTestId("subagent-panel")).toHaveCount(2);
  expect(await panelStates(onB)).toEqual(live);
  expect(await lastAssistant(onB).innerText()).toBe(answer);
  await shot(onB, "scale-out-b-reloaded");

  const stored = await openStoredView(cluster.mongoUri);
  try {
    const turn = (await stored.turns(sessionId)).at(-1)!;
    expect(turn.status).toBe("completed");
    expect(runsOf(turn).map((r) => r.runId)).toEqual(live.map((p) => p.runId));
  } finally {
    await stored.close();
  }
  await context.close();
});

test("through Caddy (deploy/Caddyfile), a browser pinned to one process follows its chat to the other when that process is killed mid-turn", async ({
  browser,
}) => {
  test.setTimeout(150_000);
  const caddy = await startCaddy(cluster.alive().map((n) => `127.0.0.1:${n.port}`));
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(`${caddy.url}/`);
    const servedBy = async () => ((await (await page.request.get(`${caddy.url}/api/health`)).json()) as { instance?: string }).instance;
    // lb_policy cookie: every request of this browser reaches the same process.
    const pinned = await servedBy();
    expect(pinned).toBeTruthy();
    for (let i = 0; i < 4; i++) expect(await servedBy()).toBe(pinned);

    await send(page, PROMPT);
    await page.waitForURL(/\/c\/[A-Za-z0-9_-]+$/);
    await expect(page.locator('[data-testid="subagent-panel"][data-status="running"]').first()).toBeVisible({ timeout: 20_000 });
    const owner = cluster.nodes.find((n) => n.instanceId === pinned)!;
    await owner.kill();

    // The page reconnects through Caddy to the live process, which sweeps the dead owner's turn.
    await waitForTurnEnd(page, 30_000);
    await expect(page.locator('[data-testid="subagent-panel"][data-status="running"]')).toHaveCount(0);
    expect(await servedBy()).not.toBe(pinned);
    await shot(page, "scale-out-proxy-swept");
    const live = await panelStates(page);
    const status = await lastAssistant(page).getAttribute("data-status");

    await page.reload();
    await expect(page.getByTestId("subagent-panel")).toHaveCount(live.length);
    expect(await panelStates(page)).toEqual(live);
    await expect(lastAssistant(page)).toHaveAttribute("data-status", status!);
  } finally {
    await context.close();
    await caddy.stop();
  }
});
