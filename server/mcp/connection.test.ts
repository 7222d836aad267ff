import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ToolError } from "@/lib/tools/types";
import { startHostileHttpServer, type HostileHttpServer } from "@/test/support/mcp/hostile-http-server";
import { httpServer, waitFor } from "@/test/support/mcp/servers";
import { MAX_MESSAGE_BYTES } from "./bounded-fetch";
import { McpConnection } from "./connection";

/** MCP over Streamable HTTP against a server that answers too much, forever, or too slowly. */

const MIB = 2 ** 20;
/** Where the endless reply stops by itself: a client that reads it all has read far past the limit. */
const ENDLESS_CAP = 128 * MIB;

let server: HostileHttpServer;
/** A server of its own for the timeout case (one server transport holds one MCP session). */
let slowServer: HostileHttpServer;
/** Calls that must finish (or be cut for size) get time enough on a busy machine. */
let connection: McpConnection;
/** The timeout case only: a short bound, so the test waits for it rather than for minutes. */
let hurried: McpConnection;

beforeAll(async () => {
  server = await startHostileHttpServer({ oversizedBytes: 12 * MIB, endlessCapBytes: ENDLESS_CAP });
  connection = new McpConnection(httpServer("hostile", server.url, { timeoutMs: 60_000 }));
  slowServer = await startHostileHttpServer({ oversizedBytes: 12 * MIB, endlessCapBytes: ENDLESS_CAP });
  hurried = new McpConnection(httpServer("hostile", slowServer.url, { timeoutMs: 2_000 }));
  for (const c of [connection, hurried]) {
    c.start();
    await c.settled();
    expect(c.status).toBe("connected");
  }
});
afterAll(async () => {
  await hurried.close();
  await slowServer.stop();
  await connection.close();
  await server.stop();
});

const call = (tool: string, args: Record<string, unknown> = {}) => connection.call(tool, args, new AbortController().signal);
const failure = async (promise: Promise<unknown>): Promise<ToolError> => {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ToolError);
  return error as ToolError;
};
const echoStillWorks = async () => {
  expect(await call("echo", { text: "still here" })).toMatchObject({ content: [{ type: "text", text: "Echo: still here" }] });
  expect(connection.status).toBe("connected");
};

describe("MCP over HTTP, bounded as over stdio", () => {
  it("refuses a reply over the per-message limit with a clear error, and the next call works", async () => {
    const error = await failure(call("oversized"));
    expect(error.message).toMatch(/"hostile" sent a reply larger than 10 MB to "oversized"/);
    await echoStillWorks();
  });

  it("cuts a never-ending reply at the limit and closes its connection: only about the limit is read", async () => {
    const error = await failure(call("endless"));
    expect(error.message).toMatch(/reply larger than 10 MB/);
    const reply = server.replies.get("endless")!;
    await waitFor(() => reply.closed, "the endless reply's connection to close");
    // The limit, plus what the loopback socket's buffers held when it closed; the old client read all of it.
    expect(reply.written).toBeGreaterThan(MAX_MESSAGE_BYTES);
    expect(reply.written).toBeLessThan(ENDLESS_CAP / 2);
    await echoStillWorks();
  });

  it("closes a slow stream's connection at the call's timeout instead of reading on", async () => {
    const error = await failure(hurried.call("slow", {}, new AbortController().signal));
    expect(error.message).toMatch(/did not answer the call to "slow" within 2 s/);
    const reply = slowServer.replies.get("slow")!;
    await waitFor(() => reply.closed, "the slow stream's connection to close after the timeout");
    expect(await hurried.call("echo", { text: "still here" }, new AbortController().signal)).toMatchObject({
      content: [{ type: "text", text: "Echo: still here" }],
    });
    expect(hurried.status).toBe("connected");
  });

  it("reads a long stream of small messages to its answer: the limit is per message, not per stream", async () => {
    expect(await call("chatty")).toMatchObject({ content: [{ type: "text", text: "done" }] });
    expect(server.replies.get("chatty")!.written).toBeGreaterThan(16 * MIB);
  });

  it("closes the connection of a call stopped by its run", async () => {
    const controller = new AbortController();
    const pending = failure(connection.call("slow", {}, controller.signal));
    await waitFor(() => (server.replies.get("slow")?.written ?? 0) > 0 && !server.replies.get("slow")!.closed, "the new slow call");
    controller.abort();
    expect((await pending).message).toMatch(/was stopped before it finished/);
    await waitFor(() => server.replies.get("slow")!.closed, "the stopped call's connection to close");
    await echoStillWorks();
  });
});
