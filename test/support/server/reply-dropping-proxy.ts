import net from "node:net";
import mongoose from "mongoose";

/**
 * A TCP proxy in front of the test database server that can lose one reply: the request
 * reaches the database and is applied, and then the connection breaks before its answer
 * gets back — the fault that makes a client retry a write that already landed. It can
 * also lose one request: the connection breaks before the database sees it, so nothing
 * landed and the client's retry is the only copy. Only the wire framing is read (OP_MSG
 * header and the command's first field); bytes pass as is.
 */
export interface ReplyDroppingProxy {
  uri(database: string): string;
  /** The next `command` on `collection` (e.g. "update" on "turns") lands, its reply is lost. */
  dropNextReply(command: string, collection: string): Promise<void>;
  /** The next `command` on `collection` never reaches the database: the connection breaks instead. */
  dropNextRequest(command: string, collection: string): Promise<void>;
  close(): Promise<void>;
}

const OP_MSG = 2013;

export async function startReplyDroppingProxy(upstreamUri: string): Promise<ReplyDroppingProxy> {
  const upstream = new URL(upstreamUri);
  let armed: { command: string; collection: string; dropped: () => void } | undefined;
  let armedRequest: { command: string; collection: string; dropped: () => void } | undefined;
  const sockets = new Set<net.Socket>();

  const server = net.createServer((client) => {
    const db = net.connect(Number(upstream.port), upstream.hostname);
    sockets.add(client).add(db);
    let doomed: number | undefined;
    const close = () => {
      client.destroy();
      db.destroy();
    };
    client.on("close", close).on("error", close);
    db.on("close", close).on("error", close);
    frames(client, (frame) => {
      if (armedRequest && frame.readInt32LE(12) === OP_MSG) {
        const command = commandOf(frame);
        if (command && command.name === armedRequest.command && command.value === armedRequest.collection) {
          const done = armedRequest.dropped;
          armedRequest = undefined;
          close();
          done();
          return;
        }
      }
      if (armed && doomed === undefined && frame.readInt32LE(12) === OP_MSG) {
        const command = commandOf(frame);
        if (command && command.name === armed.command && command.value === armed.collection) doomed = frame.readInt32LE(4);
      }
      db.write(frame);
    });
    frames(db, (frame) => {
      if (doomed !== undefined && frame.readInt32LE(8) === doomed) {
        const done = armed!.dropped;
        armed = undefined;
        close();
        done();
        return;
      }
      client.write(frame);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;

  return {
    uri: (database) => `mongodb://127.0.0.1:${port}/${database}?directConnection=true`,
    dropNextReply: (command, collection) => new Promise<void>((resolve) => (armed = { command, collection, dropped: resolve })),
    dropNextRequest: (command, collection) => new Promise<void>((resolve) => (armedRequest = { command, collection, dropped: resolve })),
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Calls `onFrame` with each whole wire message read from `socket`. */
function frames(socket: net.Socket, onFrame: (frame: Buffer) => void): void {
  let buffered: Buffer = Buffer.alloc(0);
  socket.on("data", (data: Buffer) => {
    buffered = buffered.length === 0 ? data : Buffer.concat([buffered, data]);
    while (buffered.length >= 4) {
      const length = buffered.readInt32LE(0);
      if (buffered.length < length) break;
      onFrame(buffered.subarray(0, length));
      buffered = buffered.subarray(length);
    }
  });
}

/** The command name and its value (the collection) of an OP_MSG's body section. */
function commandOf(frame: Buffer): { name: string; value: unknown } | undefined {
  // Header (16 bytes), flag bits (4), then sections; kind 0 is the command document.
  let at = 20;
  while (at < frame.length) {
    const kind = frame[at]!;
    at += 1;
    const size = frame.readInt32LE(at);
    if (kind === 0) {
      const doc = mongoose.mongo.BSON.deserialize(frame.subarray(at, at + size));
      const name = Object.keys(doc)[0];
      return name === undefined ? undefined : { name, value: doc[name] };
    }
    at += size;
  }
  return undefined;
}
