import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";

/**
 * Seals what the MCP sign-ins keep secret (tokens, a registered client's secret) with
 * AES-256-GCM: a fresh 12-byte nonce per value, the tag checked on opening, so a value
 * changed in the database fails to open instead of being used. Sealed text is
 * `v1.<nonce>.<tag>.<ciphertext>`, base64url each.
 */
export interface SecretBox {
  seal(plain: string): string;
  /** The plain text, or undefined when it was sealed under another key or changed. */
  open(sealed: string): string | undefined;
}

const NONCE_BYTES = 12;
const HKDF_INFO = "delegate mcp oauth tokens v1";

/**
 * The key: MCP_TOKEN_KEY (32 bytes, base64) when set; else derived from the session
 * secret with HKDF-SHA256, so a deployment without the setting still never stores a token
 * in the clear (and changing SESSION_SECRET signs every person out of their MCP servers).
 */
export function tokenKey(tokenKeyBase64: string | undefined, sessionSecret: string): Buffer {
  if (tokenKeyBase64) {
    const key = Buffer.from(tokenKeyBase64, "base64");
    if (key.length !== 32) throw new Error(`MCP_TOKEN_KEY must be 32 bytes in base64 (it decodes to ${key.length})`);
    return key;
  }
  return Buffer.from(hkdfSync("sha256", sessionSecret, Buffer.alloc(0), HKDF_INFO, 32));
}

export function createSecretBox(key: Buffer): SecretBox {
  if (key.length !== 32) throw new Error("an AES-256-GCM key is 32 bytes");
  return {
    seal(plain) {
      const nonce = randomBytes(NONCE_BYTES);
      const cipher = createCipheriv("aes-256-gcm", key, nonce);
      const body = Buffer.concat([cipher.update(plain, "utf8"), cipher.final()]);
      return ["v1", nonce, cipher.getAuthTag(), body]
        .map((part) => (typeof part === "string" ? part : part.toString("base64url")))
        .join(".");
    },
    open(sealed) {
      const [version, nonce, tag, body] = sealed.split(".");
      if (version !== "v1" || nonce === undefined || tag === undefined || body === undefined) return undefined;
      try {
        const decipher = createDecipheriv("aes-256-gcm", key, Buffer.from(nonce, "base64url"));
        decipher.setAuthTag(Buffer.from(tag, "base64url"));
        return Buffer.concat([decipher.update(Buffer.from(body, "base64url")), decipher.final()]).toString("utf8");
      } catch {
        return undefined;
      }
    },
  };
}
