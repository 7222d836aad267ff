import { io as connect } from "socket.io-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDemoModel } from "@/lib/model/demo-model";
import { runtimeWith, startHarness, type Harness } from "@/test/support/server/app-harness";

/** The socket accepts the app's own origin (and configured proxies), never another site's. */
let harness: Harness;
beforeAll(async () => {
  harness = await startHarness("origin", {
    runner: runtimeWith(createDemoModel({ chunkDelayMs: 0 })),
    allowedOrigins: "https://chat.example.org",
  });
});
afterAll(async () => {
  await harness?.close();
});

function tryConnect(cookie: string, origin: string): Promise<"connected" | string> {
  return new Promise((resolve) => {
    const socket = connect(harness.baseUrl, {
      transports: ["polling"],
      extraHeaders: { cookie, origin },
      reconnection: false,
      forceNew: true,
    });
    const done = (result: string) => {
      socket.disconnect();
      resolve(result);
    };
    socket.once("connect", () => done("connected"));
    socket.once("connect_error", (error) => done(error.message));
  });
}

describe("socket origin", () => {
  it("accepts the app's own origin and a configured proxy origin", async () => {
    const cookie = await harness.newCookie();
    expect(await tryConnect(cookie, harness.baseUrl)).toBe("connected");
    expect(await tryConnect(cookie, "https://chat.example.org")).toBe("connected");
  });

  it("refuses a page on another site, even with the person's cookie", async () => {
    const cookie = await harness.newCookie();
    expect(await tryConnect(cookie, "https://evil.example")).not.toBe("connected");
  });
});
