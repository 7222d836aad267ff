import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { CallToolRequestSchema, ListToolsRequestSchema } from "@modelcontextprotocol/sdk/types.js";

/**
 * A real MCP server over Streamable HTTP, in the test's process, that misbehaves on
 * request. The SDK's server transport answers the handshake, the tool list and `echo`;
 * three tools are answered by hand, byte by byte, to see what the client reads:
 * `oversized` (one JSON reply of `oversizedBytes`), `endless` (an event stream whose one
 * message never ends; it stops at `endlessCapBytes` and then holds the stream open) and
 * `slow` (an event stream that sends a comment every 50 ms and never answers), and
 * `chatty` (an event stream of small notifications, over 16 MB in all, lines ended with
 * CRLF, then the answer: well-behaved, only long). Each of
 * those records how many bytes it got written and whether its connection was closed.
 */
export interface HandReply {
  written: number;
  closed: boolean;
}

export interface HostileHttpServer {
  url: string;
  /** The latest hand-answered call of each tool. */
  replies: Map<string, HandReply>;
  stop(): Promise<void>;
}

const HAND_TOOLS = ["oversized", "endless", "slow", "chatty"];
const CHUNK = Buffer.alloc(64 * 1024, "x");

export async function startHostileHttpServer(options: { oversizedBytes: number; endlessCapBytes: number }): Promise<HostileHttpServer> {
  const mcp = new Server({ name: "hostile-http", version: "1.0.0" }, { capabilities: { tools: {} } });
  mcp.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: ["echo", ...HAND_TOOLS].map((name) => ({ name, description: `The ${name} tool.`, inputSchema: { type: "object" as const } })),
  }));
  mcp.setRequestHandler(CallToolRequestSchema, async (request) => ({
    content: [{ type: "text", text: `Echo: ${String(request.params.arguments?.text ?? "")}` }],
  }));
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: randomUUID, enableJsonResponse: true });
  await mcp.connect(transport);

  const replies = new Map<string, HandReply>();
  const timers = new Set<NodeJS.Timeout>();
  const open = new Set<ServerResponse>();

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const body: unknown = text ? JSON.parse(text) : undefined;
    const call = body as { id?: number | string; method?: string; params?: { name?: string } } | undefined;
    const tool = call?.method === "tools/call" ? call.params?.name : undefined;
    if (!tool || !HAND_TOOLS.includes(tool)) return transport.handleRequest(req, res, body);

    const reply: HandReply = { written: 0, closed: false };
    replies.set(tool, reply);
    open.add(res);
    res.on("close", () => {
      reply.closed = true;
      open.delete(res);
    });
    const write = (data: string | Buffer) => {
      reply.written += Buffer.byteLength(data);
      return res.write(data);
    };
    const head = `{"jsonrpc":"2.0","id":${JSON.stringify(call!.id)},"result":{"content":[{"type":"text","text":"`;
    if (tool === "oversized") {
      const filler = "x".repeat(options.oversizedBytes);
      const whole = `${head}${filler}"}]}}`;
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(whole) });
      write(whole);
      res.end();
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    if (tool === "slow") {
      const timer = setInterval(() => write(": still working\n\n"), 50);
      timers.add(timer);
      res.on("close", () => clearInterval(timer));
      return;
    }
    if (tool === "chatty") {
      const note = `data: ${JSON.stringify({ jsonrpc: "2.0", method: "notifications/message", params: { level: "info", data: "n".repeat(8 * 1024) } })}\r\n\r\n`;
      let sent = 0;
      const pump = () => {
        while (!reply.closed && sent < 2_100) {
          sent++;
          if (!write(note)) return void res.once("drain", pump);
        }
        if (reply.closed) return;
        write(`data: ${head}done"}]}}\r\n\r\n`);
        res.end();
      };
      pump();
      return;
    }
    // endless: one message that never ends, written as fast as the client takes it.
    write(`data: ${head}`);
    const pump = () => {
      while (!reply.closed && reply.written < options.endlessCapBytes) {
        if (!write(CHUNK)) return void res.once("drain", pump);
      }
    };
    pump();
  };

  const http = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const { port } = http.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    replies,
    async stop() {
      for (const timer of timers) clearInterval(timer);
      for (const res of open) res.destroy();
      await transport.close();
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
