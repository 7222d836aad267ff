import { expect, test } from "@playwright/test";
import { startChat, waitForTurnEnd } from "./fixtures";

/**
 * Scripts run under a nonce: the page's own inline scripts carry this response's nonce, a
 * script injected into the page has none and is refused, and the app loses nothing to the
 * policy (no violation while a chat streams).
 */
test("pages run their own scripts by nonce and refuse an injected one", async ({ page }) => {
  const violations: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) violations.push(message.text());
  });
  const response = await page.goto("/");
  const policy = response!.headers()["content-security-policy"] ?? "";
  const nonce = /'nonce-([^']+)'/.exec(policy)?.[1];
  expect(nonce, policy).toBeTruthy();
  expect(/script-src [^;]*'unsafe-inline'/.test(policy)).toBe(false);

  // Every inline script Next wrote into the page is allowed by this response's nonce.
  const inline = await page.locator("script:not([src])").evaluateAll((scripts) => scripts.map((s) => (s as HTMLScriptElement).nonce));
  expect(inline.length).toBeGreaterThan(0);
  for (const scriptNonce of inline) expect(scriptNonce).toBe(nonce);

  // A second load gets another nonce.
  const again = await page.request.get("/");
  expect(again.headers()["content-security-policy"]).not.toContain(nonce!);

  // Markup that gets into the page cannot run script.
  // Either the policy refuses it (a violation event) or it runs (and says so): whichever comes.
  const ran = await page.evaluate(
    () =>
      new Promise<boolean>((resolve) => {
        document.addEventListener("securitypolicyviolation", () => resolve(false), { once: true });
        window.addEventListener("injected", () => resolve(true), { once: true });
        const script = document.createElement("script");
        script.textContent = "window.dispatchEvent(new Event('injected'))";
        document.body.append(script);
      }),
  );
  expect(ran).toBe(false);
  expect(violations.some((v) => /inline script/i.test(v) || /script-src/i.test(v))).toBe(true);
  violations.length = 0;

  // The app itself works under the policy: a whole chat, no violation.
  await startChat(page, "Where is the retry logic?");
  await waitForTurnEnd(page);
  expect(violations).toEqual([]);
});
