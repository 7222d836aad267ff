import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, it } from "vitest";
import { createUrlFetchTool } from "@/lib/tools";
import { expand, label, loadCorpus } from "./corpus";
import { buildHostileWorkspace, checkToolOutcome, FILE_TOOLS, runTool, type ToolCase } from "./tool-cases";

/**
 * The workspace tools under hostile arguments (test-data/hostile/file-tools.json) and
 * url_fetch under hostile targets (url-fetch.json): every escape is refused and every
 * oversized answer is capped, with a ToolError sentence the model can read.
 */
const fileCases = loadCorpus<ToolCase>("file-tools.json").cases;
const urlCases = loadCorpus<ToolCase>("url-fetch.json").cases;

let workspace: Awaited<ReturnType<typeof buildHostileWorkspace>>;
let server: Server;
let vars: { origin: string; port: string };

beforeAll(async () => {
  workspace = await buildHostileWorkspace();
  server = await startTargetServer();
  const { port } = server.address() as AddressInfo;
  vars = { origin: `http://127.0.0.1:${port}`, port: String(port) };
});
afterAll(async () => {
  await workspace?.cleanup();
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
});

describe("file tools refuse escapes and cap what they return", () => {
  it.each(fileCases.map((c) => ({ name: label(c), c })))("$name", async ({ c }) => {
    checkToolOutcome(c, await runTool(FILE_TOOLS[c.tool!]!, expand(c.args), workspace.ws));
  });
});

describe("url_fetch refuses local and private targets, redirects included", () => {
  it.each(urlCases.map((c) => ({ name: label(c), c })))("$name", async ({ c }) => {
    const tool = createUrlFetchTool({
      allowHosts: c.allowLocal ? ["127.0.0.1"] : [],
      timeoutMs: c.timeoutMs ?? 5_000,
      maxBytes: c.maxBytes,
    });
    checkToolOutcome(c, await runTool(tool, { url: expand(c.url, vars) }, workspace.ws));
  });
});

/** The local "internet" of the url_fetch cases, on 127.0.0.1 only. */
export async function startTargetServer(): Promise<Server> {
  const drips = new Set<NodeJS.Timeout>();
  const srv = createServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://local");
    switch (url.pathname) {
      case "/page":
        res.writeHead(200, { "content-type": "text/html" });
        return res.end(
          '<html><head><title>Hostile</title><script>window.__pwned=1</script></head><body><p>Hi <img src=x onerror="window.__pwned=2"></p></body></html>',
        );
      case "/redirect":
        return res.writeHead(302, { location: expand(url.searchParams.get("to") ?? "/", vars) as string }).end();
      case "/loop":
        return res.writeHead(302, { location: "/loop" }).end();
      case "/big":
        res.writeHead(200, { "content-type": "text/plain" });
        return res.end("big text ".repeat(600_000));
      case "/binary":
        res.writeHead(200, { "content-type": "application/octet-stream" });
        return res.end(Buffer.from([0, 1, 2, 3]));
      case "/hang":
        return;
      case "/drip": {
        res.writeHead(200, { "content-type": "text/plain" });
        const timer = setInterval(() => res.write("."), 50);
        drips.add(timer);
        res.on("close", () => {
          clearInterval(timer);
          drips.delete(timer);
        });
        return;
      }
      default:
        res.writeHead(404, { "content-type": "text/plain" }).end("missing");
    }
  });
  srv.on("close", () => drips.forEach(clearInterval));
  await new Promise<void>((resolve) => srv.listen(0, "127.0.0.1", resolve));
  return srv;
}
