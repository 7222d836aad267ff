import { connect, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDemoModel } from "@/lib/model/demo-model";
import { retainedBytes } from "@/test/support/heap";
import { runtimeWith, startHarness, type Harness } from "@/test/support/server/app-harness";

/**
 * An import's upload is bounded as it arrives: one that stalls is cut at the body
 * timeout (it used to be held, with what it had sent, for as long as the client kept
 * the connection), one past the size limit is cut when it passes the limit, not after
 * it has all arrived, and neither leaves what it sent behind in memory.
 */

const MAX_BYTES = 1024 * 1024;
const BODY_TIMEOUT_MS = 1_500;
const IMPORT = "POST /api/sessions/import HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n";

let harness: Harness;
let port: number;
/** Bytes the server read on each connection, by the client's port, once it closed. */
const bytesRead = new Map<number, number>();

beforeAll(async () => {
  harness = await startHarness("upload-limits", {
    runner: runtimeWith(createDemoModel({ chunkDelayMs: 0 })),
    importMaxBytes: MAX_BYTES,
    importBodyTimeoutMs: BODY_TIMEOUT_MS,
  });
  port = Number(new URL(harness.baseUrl).port);
  harness.app.httpServer.on("connection", (socket: Socket) => {
    const remotePort = socket.remotePort!;
    socket.once("close", () => bytesRead.set(remotePort, socket.bytesRead));
  });
});
afterAll(async () => {
  await harness?.close();
});

interface Upload {
  socket: Socket;
  /** What the server answered, once it closed the connection (or 10 s passed: "still open"). */
  closed: Promise<string>;
}

async function upload(head: string): Promise<Upload> {
  const socket = connect({ host: "127.0.0.1", port });
  let received = "";
  socket.on("data", (chunk: Buffer) => (received += chunk.toString("latin1")));
  socket.on("error", () => undefined);
  const closed = new Promise<string>((resolve) => {
    socket.once("close", () => resolve(received));
    setTimeout(() => resolve("still open"), BODY_TIMEOUT_MS + 10_000).unref();
  });
  await new Promise<void>((resolve) => socket.once("connect", resolve));
  socket.write(head);
  return { socket, closed };
}

/** Writes `total` bytes of `piece`s, waiting whenever the socket's buffer is full, until done or the connection ends. */
async function send(socket: Socket, piece: Buffer, total: number): Promise<void> {
  for (let sent = 0; sent < total && !socket.destroyed; sent += piece.length) {
    if (!socket.write(piece))
      await new Promise<void>((resolve) => {
        socket.once("drain", resolve);
        socket.once("close", resolve);
      });
  }
}

describe("import uploads", () => {
  it("cuts an upload that stalls part way with a 408 at the body timeout", async () => {
    const stalled = await upload(`${IMPORT}Content-Length: ${MAX_BYTES - 1000}\r\n\r\n`);
    stalled.socket.write(Buffer.alloc(200_000, "x"));
    const answer = await stalled.closed;
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toMatch(/did not finish within 1.5 s; nothing was kept/);
  });

  it("refuses a declared length over the limit before reading the body", async () => {
    const big = await upload(`${IMPORT}Content-Length: ${50 * MAX_BYTES}\r\n\r\n`);
    // Nothing of the body is sent: the answer comes from the headers alone.
    expect(await big.closed).toMatch(/^HTTP\/1\.1 413 [\s\S]*larger than 1048576 bytes/);
  });

  it("cuts a chunked upload when it passes the limit, not after it has all arrived", async () => {
    const big = await upload(`${IMPORT}Transfer-Encoding: chunked\r\n\r\n`);
    const clientPort = big.socket.localPort!;
    const data = Buffer.alloc(64 * 1024, "x");
    const piece = Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from("\r\n")]);
    // 40 times the limit, if the server took it all.
    await send(big.socket, piece, 40 * MAX_BYTES);
    expect(await big.closed).toMatch(/^HTTP\/1\.1 413 /);
    const read = bytesRead.get(clientPort);
    expect(read).toBeGreaterThan(MAX_BYTES);
    expect(read).toBeLessThan(2 * MAX_BYTES);
  });

  it("keeps nothing of the uploads it cut", async () => {
    const retained = await retainedBytes(async () => {
      const uploads = await Promise.all(Array.from({ length: 6 }, () => upload(`${IMPORT}Content-Length: ${MAX_BYTES - 1000}\r\n\r\n`)));
      for (const u of uploads) u.socket.write(Buffer.alloc(MAX_BYTES - 2000, "y"));
      const answers = await Promise.all(uploads.map((u) => u.closed));
      expect(answers.every((a) => a.startsWith("HTTP/1.1 408 "))).toBe(true);
    });
    // Six uploads of nearly 1 MB each were held until cut; none of it stays.
    expect(retained).toBeLessThan(2 * MAX_BYTES);
  });
});
