import { A2A_PROTOCOL_VERSION, type AgentCard, type AgentSkill } from "@a2a-js/sdk";

/** Where Delegate's A2A server answers, below its origin. */
export const A2A_SERVER_PATHS = { card: "/.well-known/agent-card.json", jsonrpc: "/a2a/jsonrpc" } as const;
/** The security scheme's name in the card: a bearer API token (`dlg_…`). */
export const A2A_BEARER_SCHEME = "delegateToken";

/** A skill the card lists: the master, or an operator's subagent definition. */
export interface CardSkill {
  name: string;
  description: string;
}

/** The master: every task runs as a turn of the master, which may delegate as it does for a person. */
const MASTER_SKILL: CardSkill = {
  name: "delegate",
  description: "Runs the task as a turn of Delegate's master agent, which plans and hands parts of it to its subagents.",
};

/**
 * Delegate's agent card: streaming, a bearer token required, the master and the listed
 * definitions as skills, and the JSON-RPC endpoint under `origin`, offered in the
 * current protocol and in 0.3 (the SDK's compatibility layer answers the older clients).
 */
export function delegateAgentCard(origin: string, version: string, skills: readonly CardSkill[]): AgentCard {
  const url = `${origin.replace(/\/$/, "")}${A2A_SERVER_PATHS.jsonrpc}`;
  const security = [{ schemes: { [A2A_BEARER_SCHEME]: { list: [] } } }];
  return {
    name: "Delegate",
    description:
      "A self-hosted agent that delegates: a master agent plans the task and hands parts of it to subagents, asking its owner before risky tools run.",
    supportedInterfaces: [
      { url, protocolBinding: "JSONRPC", tenant: "", protocolVersion: A2A_PROTOCOL_VERSION },
      { url, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "0.3" },
    ],
    provider: undefined,
    version,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: {
      [A2A_BEARER_SCHEME]: {
        scheme: {
          $case: "httpAuthSecurityScheme",
          value: { description: "An API token made on Delegate's tokens page (dlg_…).", scheme: "Bearer", bearerFormat: "" },
        },
      },
    },
    securityRequirements: security,
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [MASTER_SKILL, ...skills].map((skill) => toSkill(skill, security)),
    signatures: [],
  };
}

function toSkill(skill: CardSkill, security: AgentSkill["securityRequirements"]): AgentSkill {
  return {
    id: skill.name,
    name: skill.name,
    description: skill.description,
    tags: [skill.name === MASTER_SKILL.name ? "master" : "subagent"],
    examples: [],
    inputModes: [],
    outputModes: [],
    securityRequirements: security,
  };
}

/** The operator's definitions named in A2A_SERVER_SKILLS (comma-separated), in that order; unknown names are left out. */
export function listedSkills(list: string, definitions: readonly CardSkill[]): CardSkill[] {
  const byName = new Map(definitions.map((d) => [d.name, d]));
  const names = [
    ...new Set(
      list
        .split(",")
        .map((n) => n.trim())
        .filter(Boolean),
    ),
  ];
  return names.flatMap((name) => {
    const found = byName.get(name);
    return found ? [{ name: found.name, description: found.description }] : [];
  });
}
