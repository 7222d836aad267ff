import { expect, test } from "@playwright/test";
import { startTestA2AAgent, type TestA2AAgent } from "../test/support/a2a/test-agent";
import { MCP_SCOPE, startAuthorizationServer, type AuthorizationServer } from "../test/support/oidc/mcp-auth-servers";
import type { HostileApp } from "./support/hostile-app";
import { startRemoteAgentApp } from "./support/remote-agent-app";
import { shot, startChat, waitForTurnEnd } from "./fixtures";

/**
 * A remote agent each person signs in to, in Chromium: the app's master (a scripted
 * OpenAI-compatible server) delegates "Delegate: <task>" to `warehouse`, a real A2A agent
 * (the SDK's server classes) whose card names an OAuth 2 scheme of a real authorization
 * server (oidc-provider) and which checks every bearer against it. Before signing in the
 * run ends with where to sign in; the person signs in from the wrench menu at the
 * provider's own page, and the next run carries their token.
 */

let as: AuthorizationServer;
let agent: TestA2AAgent;
let app: HostileApp;

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  test.setTimeout(180_000);
  as = await startAuthorizationServer({ accessTokenTtlS: 600 });
  agent = await startTestA2AAgent({ oauth: { issuer: as.issuer, card: "oauth2", scopes: [MCP_SCOPE] } });
  app = await startRemoteAgentApp([{ name: "warehouse", a2a: { cardUrl: agent.cardUrl, oauth: true } }]);
});
test.afterAll(async () => {
  await app?.stop();
  await agent?.close();
  await as?.close();
});

test("a run before signing in says where to sign in; signed in from the wrench menu, the next run carries this person's token; signed out, the menu says so", async ({
  page,
}) => {
  await startChat(page, "Delegate: stream the sales report", app.baseUrl);
  await waitForTurnEnd(page);
  const refused = page.getByTestId("subagent-panel");
  await expect(refused).toHaveAttribute("data-status", "error");
  await refused.getByTestId("subagent-toggle").first().click();
  await expect(refused).toContainText('sign in to "warehouse" from the wrench menu in the chat\'s header');
  expect(agent.messages, "the agent heard nothing from someone not signed in").toEqual([]);

  const button = page.getByTestId("tool-servers-button");
  await expect(button).toHaveAccessibleName("Remote agents: signed in to 0 of 1");
  await button.click();
  const row = page.getByTestId("remote-agent-sign-in").filter({ hasText: "warehouse" });
  await expect(row).toContainText("needs sign-in");
  await expect(row).toContainText(`A2A · ${new URL(agent.cardUrl).host}`);
  await row.getByRole("button", { name: "Sign in" }).click();

  // The authorization server's own page, then back to the app with the menu open.
  await page.getByLabel("Account").fill("ada");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page).toHaveURL(`${app.baseUrl}/`);
  await expect(page.getByTestId("tool-server-sign-in-outcome")).toHaveText("Signed in to the remote agent warehouse.");
  await expect(row).toContainText("signed in");
  await expect(button).toHaveAccessibleName("Remote agents: signed in to 1 of 1");
  await page.emulateMedia({ colorScheme: "dark" });
  await shot(page, "remote-agent-signed-in");
  await page.emulateMedia({ colorScheme: "light" });

  await startChat(page, "Delegate: stream the sales report", app.baseUrl);
  await waitForTurnEnd(page);
  const run = page.getByTestId("subagent-panel");
  await expect(run).toHaveAttribute("data-status", "success");
  await expect(page.getByText("The warehouse has answered.")).toBeVisible();
  expect(agent.subjects).toContain("ada");

  await button.click();
  await row.getByRole("button", { name: "Sign out" }).click();
  await expect(row).toContainText("needs sign-in");
  await expect(button).toHaveAccessibleName("Remote agents: signed in to 0 of 1");

  // On a phone the menu opens across the screen, not off its left edge.
  await page.setViewportSize({ width: 375, height: 740 });
  const box = (await page.getByTestId("tool-servers-panel").boundingBox())!;
  expect(box.x).toBeGreaterThanOrEqual(0);
  expect(box.x + box.width).toBeLessThanOrEqual(375);
});
