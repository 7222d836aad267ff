import { Schema, type Connection, type InferSchemaType } from "mongoose";

/**
 * The accounts' collections: accounts, sign-in sessions, one-time links
 * (invitations, password resets) and the APP_PASSWORD login sessions. Secrets are never stored: a sign-in session and
 * a one-time link are kept under the SHA-256 of their token, and looked up by it.
 */
const ssoIdentity = new Schema({ issuer: { type: String, required: true }, subject: { type: String, required: true } }, { _id: false });

const accountSchema = new Schema(
  {
    _id: { type: String, required: true },
    /** Lowercased before it is stored (the contract's zod schema does it). */
    email: { type: String, required: true },
    displayName: { type: String, default: "" },
    /** Argon2id PHC string; null for an account that only signs in through SSO. */
    passwordHash: { type: String, default: null },
    /** Absent (not empty) until linked, so the sparse unique index skips password-only accounts. */
    sso: { type: [ssoIdentity], default: undefined },
    role: { type: String, enum: ["admin", "member"], required: true },
    disabled: { type: Boolean, default: false },
    lastSeenAt: { type: Date, default: null },
    /** Cookie identities (`dlg_uid`) whose chats were claimed or declined: each is asked once. */
    claimedFrom: { type: [String], default: () => [] },
    /** True on the first account only (the first admin); absent on every other, so the sparse unique index allows one. */
    founder: { type: Boolean, default: undefined },
    /**
     * The admin's quota for this account (lib/contracts/quota.ts QuotaSetting: `{ kind:
     * "none" }` or `{ kind: "custom", day?, month? }`); absent: the operator's QUOTA_*.
     */
    quota: { type: Schema.Types.Mixed, default: undefined },
  },
  { timestamps: { createdAt: true, updatedAt: false }, versionKey: false },
);
accountSchema.index({ email: 1 }, { unique: true });
accountSchema.index({ "sso.issuer": 1, "sso.subject": 1 }, { unique: true, sparse: true });
// The database decides who is first: of sign-ups racing on any number of processes, one founder.
accountSchema.index({ founder: 1 }, { unique: true, sparse: true });

const signInSessionSchema = new Schema(
  {
    /** SHA-256 (hex) of the cookie's token. */
    _id: { type: String, required: true },
    publicId: { type: String, required: true },
    accountId: { type: String, required: true },
    method: { type: String, enum: ["password", "sso"], required: true },
    createdAt: { type: Date, required: true },
    lastSeenAt: { type: Date, required: true },
    expiresAt: { type: Date, required: true },
    userAgent: { type: String, default: "" },
  },
  { versionKey: false },
);
signInSessionSchema.index({ accountId: 1 });
signInSessionSchema.index({ publicId: 1 }, { unique: true });
// The expiry index ({ expiresAt: 1 }, TTL where the server has it) is made by the
// service through server/db/expiry-index.ts: FerretDB refuses the TTL option.

const oneTimeLinkSchema = new Schema(
  {
    /** SHA-256 (hex) of the link's token. */
    _id: { type: String, required: true },
    publicId: { type: String, required: true },
    kind: { type: String, enum: ["invite", "reset"], required: true },
    /** The account a reset link is for. */
    accountId: { type: String, default: null },
    createdBy: { type: String, required: true },
    createdAt: { type: Date, required: true },
    expiresAt: { type: Date, required: true },
    usedAt: { type: Date, default: null },
  },
  { versionKey: false },
);
oneTimeLinkSchema.index({ publicId: 1 }, { unique: true });
oneTimeLinkSchema.index({ kind: 1, createdAt: -1 });

/** An APP_PASSWORD login (server/accounts/password-gate.ts): shared by every process, so a logout anywhere ends it everywhere. */
const loginSessionSchema = new Schema(
  {
    /** SHA-256 (hex) of the session id the signed cookie names. */
    _id: { type: String, required: true },
    createdAt: { type: Date, required: true },
    expiresAt: { type: Date, required: true },
  },
  { versionKey: false },
);
// Its expiry index is made by password-gate.ts through server/db/expiry-index.ts, as the sign-in sessions' is.

export type AccountRecord = InferSchemaType<typeof accountSchema> & { _id: string; createdAt: Date };
export type SignInSessionRecord = InferSchemaType<typeof signInSessionSchema> & { _id: string };
export type OneTimeLinkRecord = InferSchemaType<typeof oneTimeLinkSchema> & { _id: string };

export function defineAccountModel(connection: Connection) {
  return connection.model("Account", accountSchema);
}
export function defineSignInSessionModel(connection: Connection) {
  return connection.model("SignInSession", signInSessionSchema);
}
export function defineLoginSessionModel(connection: Connection) {
  return connection.model("LoginSession", loginSessionSchema);
}
export function defineOneTimeLinkModel(connection: Connection) {
  return connection.model("OneTimeLink", oneTimeLinkSchema);
}
