import { AppError } from "@/lib/contracts";
import type { McpManager } from "@/server/mcp/manager";
import { REMOTE_KEY_PREFIX, type RemoteSignIns } from "@/server/remote-agents/remote-sign-in";
import { takeOwnAttempt, type SignInDeps } from "./person-sign-in";

/**
 * Everything a person signs in to, for the sign-in routes: MCP servers by their name,
 * remote agents as `a2a:<agent>` (the key their sign-ins are kept under). One callback
 * serves both: the attempt its state names says which it was.
 */
export interface SignInTargets {
  /** The address the browser goes to, or null when a stored refresh token already signed the person in. */
  signIn(ownerId: string, target: string, redirectUrl: string): Promise<{ authorizationUrl: string } | null>;
  /** Checks the state is `ownerId`'s (once) and finishes; returns the target. */
  finishSignIn(ownerId: string, state: string, code: string): Promise<string>;
  signOut(ownerId: string, target: string): Promise<void>;
}

export function createSignInTargets(
  parts: { mcp?: Pick<McpManager, "signIn" | "finish" | "signOut">; remote?: RemoteSignIns },
  deps: Pick<SignInDeps, "store" | "now">,
): SignInTargets {
  const remoteName = (target: string) => (target.startsWith(REMOTE_KEY_PREFIX) ? target.slice(REMOTE_KEY_PREFIX.length) : undefined);
  const none = (target: string) => new AppError("not_found", `Nothing called "${target}" takes a sign-in here.`);
  return {
    signIn(ownerId, target, redirectUrl) {
      const agent = remoteName(target);
      if (agent !== undefined) {
        if (!parts.remote) throw none(target);
        return parts.remote.signIn(ownerId, agent, redirectUrl);
      }
      if (!parts.mcp) throw none(target);
      return parts.mcp.signIn(ownerId, target, redirectUrl);
    },
    async finishSignIn(ownerId, state, code) {
      const attempt = await takeOwnAttempt(deps, ownerId, state);
      const agent = remoteName(attempt.serverName);
      const part = agent !== undefined ? parts.remote : parts.mcp;
      if (!part) throw none(attempt.serverName);
      await part.finish(attempt, code);
      return attempt.serverName;
    },
    async signOut(ownerId, target) {
      const agent = remoteName(target);
      if (agent !== undefined) {
        if (!parts.remote) throw none(target);
        return parts.remote.signOut(ownerId, agent);
      }
      if (!parts.mcp) throw none(target);
      return parts.mcp.signOut(ownerId, target);
    },
  };
}
