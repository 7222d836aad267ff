import { REMOTE_PLACEHOLDERS } from "@/lib/remote-agents/remote-ref";
import type { RemoteAgentTransport } from "@/lib/remote-agents/transport";
import { describeError } from "./model-step";
import type { SubagentDefinition } from "./definitions";
import type { ModelFor } from "./run-models";

/**
 * What the master reads of a remote agent is its card's description and skills, read as
 * each turn starts (the transport caches cards), so an agent that learns a skill is
 * offered for it without a restart. A card that cannot be read leaves a description that
 * says so: the master then knows why the agent is unlikely to answer.
 */

interface DescribedDeps {
  definitions: SubagentDefinition[];
  modelFor: ModelFor;
  refOf?: (definition: SubagentDefinition) => { id: string; version: number } | undefined;
  remoteAgents?: RemoteAgentTransport;
}

/** A card that has not answered by then is described as unreachable; the turn does not wait longer. */
const DESCRIBE_WAIT_MS = 10_000;

export async function withRemoteDescriptions<D extends DescribedDeps>(deps: D, signal: AbortSignal): Promise<D> {
  const { remoteAgents, modelFor, refOf } = deps;
  const pending = deps.definitions.filter((d) => d.a2a && d.description === REMOTE_PLACEHOLDERS.description);
  if (pending.length === 0 || !remoteAgents) return deps;
  const timeout = AbortSignal.any([signal, AbortSignal.timeout(DESCRIBE_WAIT_MS)]);
  const described = new Map<SubagentDefinition, SubagentDefinition>();
  await Promise.all(
    pending.map(async (definition) => {
      const ref = definition.a2a!;
      let description: string;
      try {
        description = (await remoteAgents.describe(ref, { trusted: refOf?.(definition) === undefined, signal: timeout })).description;
      } catch (error) {
        description = `A remote agent at ${new URL(ref.cardUrl).host} whose card could not be read as this turn started (${describeError(error)}); a task for it will likely fail.`;
      }
      described.set(definition, { ...definition, description });
    }),
  );
  // The runtime knows definitions by identity (their model, their stored version): a described copy answers as its original.
  const original = new Map([...described].map(([from, to]) => [to, from]));
  return {
    ...deps,
    definitions: deps.definitions.map((d) => described.get(d) ?? d),
    modelFor: (definition) => modelFor(original.get(definition) ?? definition),
    ...(refOf ? { refOf: (definition: SubagentDefinition) => refOf(original.get(definition) ?? definition) } : {}),
  };
}
