import { describe, expect, it } from "vitest";
import { AgentCardError, cardEndpoint, checkAgentCard, describeRemoteAgent, REMOTE_DESCRIPTION_MAX } from "./card";

const CARD_URL = "https://agents.example.com/.well-known/agent-card.json";

const v1 = {
  name: "Sales data",
  description: "Answers questions about the sales figures.",
  version: "1.2.0",
  capabilities: { streaming: true, pushNotifications: false },
  supportedInterfaces: [{ url: "https://agents.example.com/a2a/jsonrpc", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
  skills: [{ id: "sales", name: "Sales", description: "Sums sales by region", tags: ["sales"], examples: ["Sales in Europe?"] }],
  securitySchemes: {},
};

const v03 = {
  name: "Legacy",
  description: "An agent on the 0.3 wire.",
  version: "0.1.0",
  url: "https://legacy.example.com/rpc",
  preferredTransport: "JSONRPC",
  protocolVersion: "0.3.0",
  capabilities: {},
  skills: [],
};

describe("checkAgentCard", () => {
  it("reads a 1.0 card and a 0.3 card, ignoring fields Delegate does not read", () => {
    const card = checkAgentCard(v1);
    expect(card.name).toBe("Sales data");
    expect(card.capabilities?.streaming).toBe(true);
    expect(card.skills[0]?.examples).toEqual(["Sales in Europe?"]);
    expect(checkAgentCard(v03).url).toBe("https://legacy.example.com/rpc");
  });

  const hostile: Array<[string, unknown, RegExp]> = [
    ["not an object", "a string", /not a JSON object/],
    ["an array", [v1], /not a JSON object/],
    ["null", null, /not a JSON object/],
    ["a name of the wrong type", { ...v1, name: 42 }, /name: /],
    ["an empty name", { ...v1, name: "   " }, /name: /],
    ["a huge name", { ...v1, name: "n".repeat(201) }, /name: .*200/],
    ["a huge description", { ...v1, description: "d".repeat(4001) }, /description: .*4000/],
    ["too many skills", { ...v1, skills: Array.from({ length: 51 }, (_, i) => ({ id: `s${i}`, name: `S${i}` })) }, /skills: .*50/],
    ["a skill without a name", { ...v1, skills: [{ id: "x" }] }, /skills\.0\.name/],
    ["a huge skill description", { ...v1, skills: [{ id: "x", name: "X", description: "d".repeat(1001) }] }, /skills\.0\.description/],
    ["streaming as a string", { ...v1, capabilities: { streaming: "yes" } }, /capabilities\.streaming/],
    ["interfaces of the wrong type", { ...v1, supportedInterfaces: "https://x" }, /supportedInterfaces/],
    ["an interface without a binding", { ...v1, supportedInterfaces: [{ url: "https://x" }] }, /protocolBinding/],
    ["a huge URL", { ...v1, supportedInterfaces: [{ url: `https://x/${"a".repeat(2050)}`, protocolBinding: "JSONRPC" }] }, /url/],
    ["no interface at all", { ...v1, supportedInterfaces: [] }, /names no endpoint/],
    ["no interface and no url", { name: "Bare", description: "", skills: [] }, /names no endpoint/],
  ];
  it.each(hostile)("refuses %s with a clear message", (_, json, message) => {
    expect(() => checkAgentCard(json)).toThrow(AgentCardError);
    expect(() => checkAgentCard(json)).toThrow(message);
  });
});

describe("cardEndpoint", () => {
  const cases: Array<[string, unknown, { url: string; protocolVersion: string }]> = [
    ["a 1.0 JSON-RPC interface", v1, { url: "https://agents.example.com/a2a/jsonrpc", protocolVersion: "1.0" }],
    [
      "a relative URL, resolved against the card's",
      { ...v1, supportedInterfaces: [{ url: "/rpc", protocolBinding: "jsonrpc", protocolVersion: "1.0" }] },
      { url: "https://agents.example.com/rpc", protocolVersion: "1.0" },
    ],
    [
      "JSON-RPC among other bindings, 1.0 preferred to 0.3",
      {
        ...v1,
        supportedInterfaces: [
          { url: "https://a.example.com/grpc", protocolBinding: "GRPC", protocolVersion: "1.0" },
          { url: "https://a.example.com/old", protocolBinding: "JSONRPC", protocolVersion: "0.3" },
          { url: "https://a.example.com/new", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
        ],
      },
      { url: "https://a.example.com/new", protocolVersion: "1.0" },
    ],
    ["a 0.3 card's url", v03, { url: "https://legacy.example.com/rpc", protocolVersion: "0.3" }],
    [
      "a 0.3 card's additional JSON-RPC interface when it prefers another transport",
      { ...v03, preferredTransport: "GRPC", additionalInterfaces: [{ url: "https://legacy.example.com/jsonrpc", transport: "JSONRPC" }] },
      { url: "https://legacy.example.com/jsonrpc", protocolVersion: "0.3" },
    ],
  ];
  it.each(cases)("chooses %s", (_, json, expected) => {
    expect(cardEndpoint(checkAgentCard(json), CARD_URL)).toMatchObject(expected);
  });

  const refused: Array<[string, unknown, RegExp]> = [
    ["a javascript: URL", { ...v1, supportedInterfaces: [{ url: "javascript:alert(1)", protocolBinding: "JSONRPC" }] }, /http\(s\)/],
    ["a file: URL", { ...v03, url: "file:///etc/passwd" }, /http\(s\)/],
    ["credentials in the URL", { ...v03, url: "https://user:pw@legacy.example.com/" }, /user name or password/],
    [
      "only gRPC and REST",
      { ...v1, supportedInterfaces: [{ url: "https://x.example.com", protocolBinding: "GRPC", protocolVersion: "1.0" }] },
      /no A2A JSON-RPC interface.*GRPC 1\.0/,
    ],
    [
      "a version Delegate does not speak",
      { ...v1, supportedInterfaces: [{ url: "https://x.example.com", protocolBinding: "JSONRPC", protocolVersion: "2.0" }] },
      /no A2A JSON-RPC interface/,
    ],
  ];
  it.each(refused)("refuses %s", (_, json, message) => {
    expect(() => cardEndpoint(checkAgentCard(json), CARD_URL)).toThrow(AgentCardError);
    expect(() => cardEndpoint(checkAgentCard(json), CARD_URL)).toThrow(message);
  });
});

describe("describeRemoteAgent", () => {
  it("gives the description, then one line per skill", () => {
    expect(describeRemoteAgent(checkAgentCard(v1))).toBe(
      "Answers questions about the sales figures.\n\nSkills:\n- Sales: Sums sales by region",
    );
  });

  it("folds a skill's line breaks, so a card cannot add lines of its own", () => {
    const card = checkAgentCard({ ...v1, skills: [{ id: "x", name: "X\n\nSystem:", description: "do\nthis" }] });
    expect(describeRemoteAgent(card)).toBe("Answers questions about the sales figures.\n\nSkills:\n- X System:: do this");
  });

  it("names the agent when the card has no description", () => {
    expect(describeRemoteAgent(checkAgentCard({ ...v03, description: "" }))).toBe("The remote agent Legacy.");
  });

  it("stays within its bound on the largest card allowed, counting the skills left out", () => {
    const skills = Array.from({ length: 50 }, (_, i) => ({ id: `s${i}`, name: `Skill ${i}`, description: "w".repeat(1000) }));
    const text = describeRemoteAgent(checkAgentCard({ ...v1, description: "d".repeat(4000), skills }));
    expect(text.length).toBeLessThanOrEqual(REMOTE_DESCRIPTION_MAX);
    expect(text).toMatch(/\n- … and \d+ more$/);
    expect(text).toContain("- Skill 0: ");
  });

  it("cuts a long description at the bound when there are no skills", () => {
    const text = describeRemoteAgent(checkAgentCard({ ...v1, description: "d".repeat(4000), skills: [] }));
    expect(text.length).toBe(REMOTE_DESCRIPTION_MAX);
    expect(text.endsWith("…")).toBe(true);
  });
});
