#!/usr/bin/env node
/**
 * A real MCP server over stdio, written with the official SDK's McpServer, whose tools ask
 * the client's person a question mid-call (elicitation). Test use only. Its tools:
 * `order` (asks for a size and a gift wrap, then says what it got), `bad_form` (asks with a
 * multi-select field: valid MCP, outside what Delegate shows), `peek` (read-only, asks nothing) and `remove`
 * (destructive, asks nothing): the last two carry annotations, the first none.
 */
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

const server = new McpServer({ name: "elicit-test", version: "1.0.0" });

const orderForm = {
  type: "object",
  properties: {
    size: { type: "string", title: "Size", enum: ["s", "m", "l"] },
    gift: { type: "boolean", title: "Gift wrap" },
  },
  required: ["size"],
};

server.registerTool("order", { description: "Order a shirt, asking the person for the size." }, async () => {
  const result = await server.server.elicitInput({ message: "Which size should the shirt be?", requestedSchema: orderForm });
  if (result.action !== "accept") return { content: [{ type: "text", text: `No order: the person chose to ${result.action}.` }] };
  const { size, gift } = result.content ?? {};
  return { content: [{ type: "text", text: `Ordered a size ${size} shirt${gift ? ", gift wrapped" : ""}.` }] };
});

server.registerTool("bad_form", { description: "Ask with a multi-select form." }, async () => {
  try {
    await server.server.elicitInput({
      message: "Which colours?",
      requestedSchema: {
        type: "object",
        properties: { colours: { type: "array", title: "Colours", items: { type: "string", enum: ["red", "blue"] } } },
      },
    });
    return { content: [{ type: "text", text: "The client took the multi-select form." }] };
  } catch (error) {
    return { content: [{ type: "text", text: `The client refused the question: ${error.message}` }], isError: true };
  }
});

server.registerTool("peek", { description: "Read something.", annotations: { readOnlyHint: true } }, async () => ({
  content: [{ type: "text", text: "peeked" }],
}));

server.registerTool("remove", { description: "Remove something.", annotations: { destructiveHint: true } }, async () => ({
  content: [{ type: "text", text: "removed" }],
}));

await server.connect(new StdioServerTransport());
