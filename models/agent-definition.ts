import { Schema, type Connection, type InferSchemaType } from "mongoose";

/**
 * One version of a subagent definition made in the app. A change writes the next version
 * as a new document and never edits an old one, so a run's panel can always show the
 * version it ran with; a delete marks every version (new turns stop offering it, panels keep it).
 */
const agentDefinitionSchema = new Schema(
  {
    /** `<definitionId>:<version>`: a second write of the same version is refused by the key itself. */
    _id: { type: String, required: true },
    definitionId: { type: String, required: true },
    version: { type: Number, required: true },
    /** The person who made it (for a shared one, the admin). */
    ownerId: { type: String, required: true },
    /** Made by an admin for everyone. */
    shared: { type: Boolean, required: true },
    /** The definition as SUBAGENTS_FILE writes it, checked by its schema before it is stored. */
    definition: { type: Schema.Types.Mixed, required: true },
    /** Who wrote this version. */
    author: { type: String, required: true },
    createdAt: { type: Date, required: true },
    deletedAt: { type: Date },
  },
  { versionKey: false, minimize: false },
);
// A turn and a list read one person's definitions and the shared ones, newest version first.
agentDefinitionSchema.index({ ownerId: 1, definitionId: 1, version: -1 });
agentDefinitionSchema.index({ shared: 1, definitionId: 1, version: -1 });
// One definition's versions (get, update, delete).
agentDefinitionSchema.index({ definitionId: 1, version: -1 });

export type AgentDefinitionRecord = InferSchemaType<typeof agentDefinitionSchema>;
/** The model on a given connection (each connection has its own registry of models). */
export function defineAgentDefinitionModel(connection: Connection) {
  return connection.model("AgentDefinition", agentDefinitionSchema);
}
