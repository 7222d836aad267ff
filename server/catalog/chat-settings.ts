import { AppError, type ChatSettings, type ChatSettingsInput, type ModelCatalog } from "@/lib/contracts";
import type { RunModel } from "@/lib/agent/run-models";
import type { TurnAgents } from "@/lib/agent/runtime";
import type { ChatStore } from "@/server/data/store";

/** What the chat settings need of the catalog (server/catalog/model-catalog.ts). */
export interface ModelChoices {
  catalog(): Promise<ModelCatalog>;
  resolve(key: string): Promise<RunModel | undefined>;
}

/** What a turn runs with: the chat's model and instructions as they are when it starts. */
export interface TurnSettings {
  model?: RunModel;
  instructions?: string;
  /** The subagent definitions made in the app the turn may use, and the operator's it may not (server/agents/). */
  agents?: TurnAgents;
}

/**
 * A chat's settings as a person sees and changes them, and as its turns run with them.
 * The model a chat runs on is the first of these the catalog still offers: the chat's own
 * choice, the person's default (the model they picked last, in any chat), the operator's
 * default. Picking a model sets both the chat's choice and the person's default, so a new
 * chat starts on the model last used.
 */
export class ChatSettingsService {
  constructor(
    private readonly store: Pick<ChatStore, "chatSettings" | "setChatSettings" | "defaultModel" | "setDefaultModel">,
    /** Absent: no choice of model (every turn on the runner's own; the settings' model is ""). */
    private readonly choices?: ModelChoices,
  ) {}

  /** The settings in effect (the session's ownership already checked). */
  async settings(ownerId: string, sessionId: string | undefined): Promise<ChatSettings> {
    const [stored, personal, catalog] = await Promise.all([
      sessionId ? this.store.chatSettings(sessionId) : Promise.resolve({ model: undefined, instructions: undefined }),
      this.store.defaultModel(ownerId),
      this.choices?.catalog() ?? Promise.resolve(NO_CHOICE),
    ]);
    const offered = (key: string | undefined) => key !== undefined && catalog.models.some((m) => m.key === key);
    const model = [stored.model, personal].find(offered) ?? catalog.defaultKey;
    return { model, instructions: stored.instructions ?? "" };
  }

  /** Sets what `input` names on `ownerId`'s chat; a model the catalog does not offer is refused. */
  async update(ownerId: string, input: ChatSettingsInput): Promise<ChatSettings> {
    const { sessionId, model, instructions } = input;
    if (model !== undefined && !(await this.choices?.resolve(model))) throw notOffered(model);
    await this.store.setChatSettings(ownerId, sessionId, {
      ...(model !== undefined ? { model } : {}),
      ...(instructions !== undefined ? { instructions } : {}),
    });
    if (model !== undefined) await this.store.setDefaultModel(ownerId, model);
    return this.settings(ownerId, sessionId);
  }

  /**
   * The model a sender's picker showed, made the chat's choice (and the person's default)
   * unless it already is: one read when nothing changes, since it sits on every send.
   */
  async choose(ownerId: string, sessionId: string, model: string): Promise<void> {
    if ((await this.store.chatSettings(sessionId)).model === model) return;
    if (!(await this.choices?.resolve(model))) throw notOffered(model);
    await Promise.all([this.store.setChatSettings(ownerId, sessionId, { model }), this.store.setDefaultModel(ownerId, model)]);
  }

  /** What a turn of the chat runs with now. */
  async forTurn(ownerId: string, sessionId: string): Promise<TurnSettings> {
    const { model: key, instructions } = await this.settings(ownerId, sessionId);
    const own = instructions ? { instructions } : {};
    if (!this.choices) return own;
    const model = key ? await this.choices.resolve(key) : undefined;
    if (!model)
      throw new AppError("unavailable", "No model is available: every configured endpoint failed to list its models, and none names any.");
    return { model, ...own };
  }
}

const NO_CHOICE: ModelCatalog = { models: [], defaultKey: "", endpoints: [] };

function notOffered(key: string): AppError {
  return new AppError("bad_request", `The model "${key}" is not offered here (any more). Pick another in the model menu.`);
}
