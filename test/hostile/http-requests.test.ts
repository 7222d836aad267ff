import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expand, label, loadCorpus } from "./corpus";
import { checkHttpReply, sendHttpCase, type HttpCase } from "./http-cases";
import { prototypePolluted, startHostileServer, type HostileServer } from "./hostile-server";
import { startAccountsHostileServer, type AccountsHostileServer } from "./accounts-server";

/**
 * The JSON API under hostile requests, from test-data/hostile/http-requests.json: a clear
 * error with the right status (never a 500), legitimate unicode accepted, and another
 * person still served after every batch.
 */
const corpus = loadCorpus<HttpCase>("http-requests.json");
const cases = corpus.cases.filter((c) => c.server !== "accounts");
/** Account cases run against a server in open account mode. */
const accountCases = corpus.cases.filter((c) => c.server === "accounts");
const BATCH = 15;
const batches = Array.from({ length: Math.ceil(cases.length / BATCH) }, (_, i) => cases.slice(i * BATCH, (i + 1) * BATCH));

let server: HostileServer;
beforeAll(async () => {
  server = await startHostileServer("hostile_http");
});
afterAll(async () => {
  await server?.close();
});

describe.each(batches.map((batch, i) => ({ i, batch })))("hostile HTTP batch $i", ({ batch }) => {
  it.each(batch.map((c) => ({ name: label(c), c })))("$name", async ({ c }) => {
    const reply = await sendHttpCase(server.harness.baseUrl, server.attackerCookie, c, server.vars);
    const body = checkHttpReply(c, reply) as { sessionId?: string } | undefined;
    if (c.expect.listedTitle !== undefined) {
      const listed = (await server.listed()).find((s) => s.sessionId === body?.sessionId);
      expect(listed?.title).toBe(expand(c.expect.listedTitle));
    }
  });

  it("another person is still served, and no prototype was polluted", async () => {
    await server.bystanderServed();
    expect(prototypePolluted()).toEqual([]);
  });
});

describe("hostile HTTP: accounts", () => {
  let accounts: AccountsHostileServer;
  beforeAll(async () => {
    accounts = await startAccountsHostileServer("hostile_acct");
  });
  afterAll(async () => {
    await accounts?.close();
  });

  it.each(accountCases.map((c) => ({ name: label(c), c })))("$name", async ({ c }) => {
    const reply = await sendHttpCase(accounts.harness.baseUrl, accounts.cookies[c.as ?? "attacker"], c, accounts.vars);
    checkHttpReply(c, reply);
  });

  it("the victim is still signed in, the disabled account still refused, and no prototype was polluted", async () => {
    await accounts.victimServed();
    await expect(accounts.harness.client(accounts.cookies.disabled)).rejects.toThrow(/sign in/);
    await expect(accounts.harness.client(accounts.cookies.revoked)).rejects.toThrow(/sign in/);
    expect(prototypePolluted()).toEqual([]);
  });
});
