import { z } from "zod";
import { CARD_LIMITS } from "./card-limits";
import { securitySchemesSchema } from "./card-sign-in";

/**
 * The parts of an A2A agent card Delegate reads, checked and bounded. A card comes from
 * whoever runs the remote agent, so every string and list has a ceiling and a card past
 * one is refused whole rather than cut: a cut card would still be read as the agent's
 * word. Fields Delegate does not read are ignored, whatever they hold.
 *
 * Both wire versions are read: A2A 1.0 names its endpoints in `supportedInterfaces`,
 * 0.3 in `url` + `preferredTransport` and `additionalInterfaces`.
 */

export { CARD_LIMITS };

/** What the master's model reads of a remote agent, at most this long. */
export const REMOTE_DESCRIPTION_MAX = 1500;

const short = z.string().max(CARD_LIMITS.token);
const url = z.string().min(1).max(CARD_LIMITS.url);

const skillSchema = z.object({
  id: z.string().min(1).max(CARD_LIMITS.name),
  name: z.string().min(1).max(CARD_LIMITS.name),
  description: z.string().max(CARD_LIMITS.skillText).default(""),
  tags: z.array(z.string().max(CARD_LIMITS.tag)).max(CARD_LIMITS.skillList).optional(),
  examples: z.array(z.string().max(CARD_LIMITS.skillText)).max(CARD_LIMITS.skillList).optional(),
});

/** A 1.0 interface: `protocolBinding` is "JSONRPC", "HTTP+JSON" or "GRPC". */
const interfaceSchema = z.object({
  url,
  protocolBinding: short.min(1),
  protocolVersion: short.optional(),
  tenant: z.string().max(CARD_LIMITS.name).optional(),
});

/** A 0.3 additional interface: the same, named `transport`. */
const legacyInterfaceSchema = z.object({ url, transport: short.min(1) });

export const agentCardSchema = z
  .object({
    name: z.string().trim().min(1).max(CARD_LIMITS.name),
    description: z.string().max(CARD_LIMITS.description).default(""),
    version: short.optional(),
    skills: z.array(skillSchema).max(CARD_LIMITS.skills).default([]),
    capabilities: z.object({ streaming: z.boolean().optional() }).optional(),
    supportedInterfaces: z.array(interfaceSchema).max(CARD_LIMITS.interfaces).optional(),
    url: url.optional(),
    preferredTransport: short.optional(),
    additionalInterfaces: z.array(legacyInterfaceSchema).max(CARD_LIMITS.interfaces).optional(),
    protocolVersion: short.optional(),
    /** Read only for where a person signs in (card-sign-in.ts); a card past its bounds is refused like any. */
    securitySchemes: securitySchemesSchema.optional(),
  })
  .refine((card) => (card.supportedInterfaces?.length ?? 0) > 0 || card.url !== undefined, {
    message: "names no endpoint (neither supportedInterfaces nor url)",
  });
export type AgentCard = z.infer<typeof agentCardSchema>;

/** A card that is not one Delegate can use; `message` says which field and why. */
export class AgentCardError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "AgentCardError";
  }
}

/** The card, checked; throws AgentCardError naming the first problems. */
export function checkAgentCard(json: unknown): AgentCard {
  if (typeof json !== "object" || json === null || Array.isArray(json)) throw new AgentCardError("it is not a JSON object");
  const result = agentCardSchema.safeParse(json);
  if (result.success) return result.data;
  const problems = result.error.issues.slice(0, 3).map((issue) => {
    const where = issue.path.map(String).join(".");
    return where ? `${where}: ${issue.message}` : issue.message;
  });
  throw new AgentCardError(problems.join("; "));
}

/** Where Delegate sends its JSON-RPC requests, and in which wire version. */
export interface AgentEndpoint {
  url: string;
  protocolVersion: "1.0" | "0.3";
  /** A 1.0 interface's tenant, sent with every request when set. */
  tenant?: string;
}

const JSONRPC = "JSONRPC";

/** The wire version Delegate speaks for a declared one; undefined for versions it does not. */
function spokenVersion(declared: string | undefined): AgentEndpoint["protocolVersion"] | undefined {
  // 1.0 requires the field; a card that leaves it out is read as the version of its shape.
  if (declared === undefined || declared.trim() === "") return "1.0";
  if (/^1(\.\d+)*$/.test(declared.trim())) return "1.0";
  if (/^0\.3(\.\d+)*$/.test(declared.trim())) return "0.3";
  return undefined;
}

/**
 * The JSON-RPC endpoint of a checked card, resolved against the card's own URL (a card may
 * name it relatively). A 1.0 interface is preferred over a 0.3 one; only http(s) URLs
 * are accepted. Throws AgentCardError when the card offers none Delegate can use.
 */
export function cardEndpoint(card: AgentCard, cardUrl: string): AgentEndpoint {
  const candidates: AgentEndpoint[] = [];
  for (const offered of card.supportedInterfaces ?? []) {
    if (offered.protocolBinding.toUpperCase() !== JSONRPC) continue;
    const protocolVersion = spokenVersion(offered.protocolVersion);
    if (protocolVersion) candidates.push({ url: offered.url, protocolVersion, ...(offered.tenant ? { tenant: offered.tenant } : {}) });
  }
  if (card.url !== undefined && (card.preferredTransport ?? JSONRPC).toUpperCase() === JSONRPC) {
    candidates.push({ url: card.url, protocolVersion: "0.3" });
  }
  for (const offered of card.additionalInterfaces ?? []) {
    if (offered.transport.toUpperCase() === JSONRPC) candidates.push({ url: offered.url, protocolVersion: "0.3" });
  }
  const chosen = candidates.find((c) => c.protocolVersion === "1.0") ?? candidates[0];
  if (!chosen) {
    const offered = [
      ...(card.supportedInterfaces ?? []).map((i) => `${i.protocolBinding} ${i.protocolVersion ?? ""}`.trim()),
      ...(card.url !== undefined ? [card.preferredTransport ?? JSONRPC] : []),
      ...(card.additionalInterfaces ?? []).map((i) => i.transport),
    ];
    throw new AgentCardError(`it offers no A2A JSON-RPC interface Delegate speaks (1.0 or 0.3); it offers: ${offered.join(", ")}`);
  }
  const resolved = URL.parse(chosen.url, cardUrl);
  if (!resolved) throw new AgentCardError(`its endpoint "${clip(chosen.url, 80)}" is not a URL`);
  if (resolved.protocol !== "http:" && resolved.protocol !== "https:") {
    throw new AgentCardError(`its endpoint must be an http(s) URL, not ${clip(resolved.protocol, 20)}`);
  }
  if (resolved.username || resolved.password) throw new AgentCardError("its endpoint URL carries a user name or password");
  return { ...chosen, url: resolved.href };
}

const SPACES = /\s+/g;
const DESCRIPTION_WITH_SKILLS_MAX = 700;
const SKILL_LINE_MAX = 200;

/** One line of a skill: whitespace folded, so a card cannot write lines of its own. */
function oneLine(text: string): string {
  return text.replace(SPACES, " ").trim();
}

function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * What the master's model reads to decide whether to call the agent: the card's
 * description, then its skills as "- name: description" lines, at most
 * REMOTE_DESCRIPTION_MAX characters: a long description or skill is cut short (with "…"),
 * and skills that do not fit are counted.
 */
export function describeRemoteAgent(card: AgentCard): string {
  const description = card.description.trim() || `The remote agent ${oneLine(card.name)}.`;
  if (card.skills.length === 0) return clip(description, REMOTE_DESCRIPTION_MAX);
  // A long description leaves room for the skills, which say what the agent can be asked.
  const about = clip(description, DESCRIPTION_WITH_SKILLS_MAX);
  let text = `${about}\n\nSkills:`;
  for (const [index, skill] of card.skills.entries()) {
    const line = `\n${clip(`- ${oneLine(skill.name)}${skill.description.trim() ? `: ${oneLine(skill.description)}` : ""}`, SKILL_LINE_MAX)}`;
    const left = card.skills.length - index;
    const more = `\n- … and ${left} more`;
    // Room for this line and, if skills follow, the count of those left.
    const reserve = left > 1 ? `\n- … and ${left - 1} more`.length : 0;
    if (text.length + line.length + reserve > REMOTE_DESCRIPTION_MAX) {
      return text.length + more.length <= REMOTE_DESCRIPTION_MAX ? text + more : text;
    }
    text += line;
  }
  return text;
}
