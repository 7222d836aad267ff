import { Schema, type Connection } from "mongoose";

/**
 * One message (or one tool list) sent to a model, stored once per session under the hash
 * of its content (`<sessionId>:<hash>`), whatever the number of requests that sent it.
 */
const modelBlobSchema = new Schema(
  {
    _id: { type: String, required: true },
    sessionId: { type: String, required: true },
    /**
     * The JSON text: tool schemas carry keys such as `$schema` and dotted names, which
     * MongoDB's update operators refuse as field names.
     */
    json: { type: String },
    /** The same JSON, Brotli-compressed (server/data/blob-codec.ts); one of the two is set. */
    z: { type: Buffer },
  },
  { versionKey: false },
);
modelBlobSchema.index({ sessionId: 1 });

export function defineModelBlobModel(connection: Connection) {
  return connection.model("ModelBlob", modelBlobSchema);
}
