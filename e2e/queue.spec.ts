import { expect, test, type Locator, type Page } from "@playwright/test";
import { contrast, renderedColours } from "./colour";
import { lastAssistant, send, shot, startChat, waitForTurnEnd } from "./fixtures";

// The demo model's subagent asks to edit a file and the turn waits for the decision: it
// runs for as long as the test needs, however slow the machine.
const WAITING_PROMPT = "Fix the typo in CONTRIBUTING.md";

/** A second tab of the same chat is a second sender: it did not start the running turn. */
async function secondSender(first: Page): Promise<Page> {
  const url = await startChat(first, WAITING_PROMPT);
  await expect(first.getByTestId("approval-banner")).toBeVisible({ timeout: 45_000 });
  const second = await first.context().newPage();
  await second.goto(url);
  await expect(lastAssistant(second)).toHaveAttribute("data-status", "running");
  return second;
}

/** The first sender denies the edit its turn waits for (the file stays as the next test needs it), and the turn goes on to its end. */
async function endFirstTurn(first: Page): Promise<void> {
  await first.getByTestId("approval-review").click();
  await first.getByTestId("approval-card").getByTestId("approval-deny").click();
}

test.describe("queueing a prompt while a turn runs", () => {
  test("a prompt sent during another's turn is queued, then sent and answered when that turn ends", async ({ page }) => {
    test.setTimeout(120_000);
    const second = await secondSender(page);

    await send(second, "Then summarise it in one line\nwith a second line");
    const offer = second.getByTestId("queue-offer");
    await expect(offer).toHaveText(/A turn is running\. Queue this message to send when it ends\?/);
    // The text is kept while the question is open, and nothing was sent.
    await expect(second.getByTestId("composer")).toHaveValue("Then summarise it in one line\nwith a second line");
    await expect(second.getByTestId("message-user")).toHaveCount(1);
    await shot(second, "queue-offer");

    // Queue has the focus: Enter picks it, as a keyboard user would.
    await expect(offer.getByRole("button", { name: "Queue" })).toBeFocused();
    await second.keyboard.press("Enter");
    await expect(offer).toBeHidden();
    await expect(second.getByTestId("queued")).toHaveText(/Queued: Then summarise it in one line\s*Cancel/);
    await expect(second.getByTestId("composer")).toHaveValue("");
    await shot(second, "queue-queued");

    await endFirstTurn(page);
    // The first turn ends; the queued prompt goes once, and its turn is answered in both tabs.
    await expect(second.getByTestId("message-user")).toHaveCount(2, { timeout: 90_000 });
    await expect(second.getByTestId("message-user").last()).toContainText("Then summarise it in one line");
    await expect(second.getByTestId("queued")).toBeHidden();
    await expect(page.getByTestId("message-user").last()).toContainText("Then summarise it in one line");
    await waitForTurnEnd(second, 90_000);
    await expect(lastAssistant(second)).toHaveAttribute("data-status", "completed");
    await expect(lastAssistant(second)).not.toHaveText("");
    await expect(second.getByTestId("message-user")).toHaveCount(2);
  });

  test("Cancel takes a queued prompt back, and nothing is sent when the turn ends", async ({ page }) => {
    test.setTimeout(120_000);
    const second = await secondSender(page);

    await send(second, "Never mind this one");
    await second.getByTestId("queue-offer").getByRole("button", { name: "Queue" }).click();
    const queued = second.getByTestId("queued");
    await expect(queued).toHaveText(/Queued: Never mind this one/);
    await queued.getByRole("button", { name: "Cancel" }).click();
    await expect(queued).toBeHidden();

    await endFirstTurn(page);
    await waitForTurnEnd(second, 90_000);
    await expect(lastAssistant(page)).toHaveAttribute("data-status", "completed");
    // Settled: the chat still holds the one prompt, and a fresh load agrees.
    await second.reload();
    await expect(lastAssistant(second)).toHaveAttribute("data-status", "completed");
    await expect(second.getByTestId("message-user")).toHaveCount(1);
    await expect(second.getByText("Never mind this one")).toHaveCount(0);
  });

  test("Cancel on the question keeps the text in the box and sends nothing", async ({ page }) => {
    test.setTimeout(120_000);
    const second = await secondSender(page);

    await send(second, "Keep me here");
    const offer = second.getByTestId("queue-offer");
    await offer.getByRole("button", { name: "Cancel" }).click();
    await expect(offer).toBeHidden();
    await expect(second.getByTestId("composer")).toHaveValue("Keep me here");
    await expect(second.getByTestId("queued")).toBeHidden();
    // When the turn ends the text is still only in the box: nothing went.
    await endFirstTurn(page);
    await waitForTurnEnd(second, 90_000);
    await expect(lastAssistant(second)).toHaveAttribute("data-status", "completed");
    await expect(second.getByTestId("message-user")).toHaveCount(1);
    await expect(second.getByTestId("composer")).toHaveValue("Keep me here");
  });

  test("on a phone in dark mode the question and the queued row are readable and reachable by touch", async ({ browser }) => {
    test.setTimeout(120_000);
    const phone = await browser.newContext({ viewport: { width: 375, height: 740 }, colorScheme: "dark", hasTouch: true, isMobile: true });
    const first = await phone.newPage();
    const second = await secondSender(first);

    await second.getByTestId("composer").fill("Queued from a phone");
    await second.getByTestId("send").tap();
    const offer = second.getByTestId("queue-offer");
    const readable = async (text: Locator) => {
      const { color, background } = await renderedColours(text);
      expect(contrast(color, background)).toBeGreaterThanOrEqual(4.5);
    };
    await readable(offer.getByText("A turn is running."));
    for (const name of ["Queue", "Cancel"]) await expect(offer.getByRole("button", { name })).toBeInViewport();
    expect(await second.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth)).toBe(true);
    await shot(second, "queue-offer-phone-dark");

    await offer.getByRole("button", { name: "Queue" }).tap();
    const queued = second.getByTestId("queued");
    await readable(queued.getByText("Queued: Queued from a phone"));
    await expect(queued.getByRole("button", { name: "Cancel" })).toBeInViewport();
    await shot(second, "queue-queued-phone-dark");
    await queued.getByRole("button", { name: "Cancel" }).tap();
    await expect(queued).toBeHidden();
    await endFirstTurn(first);
    await waitForTurnEnd(second, 90_000);
    await phone.close();
  });
});
