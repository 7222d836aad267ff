import { hash, verify } from "@node-rs/argon2";

/**
 * Password hashing: Argon2id (the library's default algorithm) with OWASP's minimum
 * parameters (19 MiB, 2 passes, 1 lane), about 20-40 ms a hash on a small machine.
 */
const OPTIONS = { memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

export function hashPassword(password: string): Promise<string> {
  return hash(password, OPTIONS);
}

/** False for a wrong password and for a stored value that is not a valid hash. */
export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  try {
    return await verify(stored, password);
  } catch {
    return false;
  }
}

let dummy: Promise<string> | undefined;

/**
 * Spends the time of one verification when there is no hash to check (unknown email,
 * SSO-only or disabled account), so the answer's timing does not tell which it was.
 */
export async function verifyAgainstDummy(password: string): Promise<void> {
  dummy ??= hashPassword("no account has this password; it only spends the time of a check");
  await verifyPassword(await dummy, password);
}
