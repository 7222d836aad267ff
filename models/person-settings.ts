import { Schema, type Connection, type InferSchemaType } from "mongoose";
import { NOTIFY_LEVELS } from "@/lib/contracts/notifications";

/**
 * What a person set once for all their chats: the model a new chat starts on (the last one
 * they picked), and which notifications they get. Keyed by the owner id their chats carry (an account, or a browser identity).
 */
const personSettingsSchema = new Schema(
  {
    _id: { type: String, required: true },
    /** A model key (`<endpoint>/<model>`). */
    model: { type: String },
    /** Which notices reach them (lib/contracts/notifications.ts); absent: the default. */
    notify: { type: String, enum: NOTIFY_LEVELS },
  },
  { timestamps: true, versionKey: false },
);

export type PersonSettingsRecord = InferSchemaType<typeof personSettingsSchema>;
/** The model on a given connection (each connection has its own registry of models). */
export function definePersonSettingsModel(connection: Connection) {
  return connection.model("PersonSettings", personSettingsSchema);
}
