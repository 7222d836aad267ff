import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { delegatingMaster } from "../../test/support/a2a/delegating-master";
import { startHostileApp, type HostileApp } from "./hostile-app";

/**
 * A private app whose SUBAGENTS_FILE holds `subagents` (remote agents, for the specs of
 * A2A delegation) and whose master hands each prompt to `warehouse` ("Delegate: <task>"),
 * answering "The warehouse has answered." once the run is back. `stop()` removes the file.
 */
export async function startRemoteAgentApp(subagents: unknown[]): Promise<HostileApp> {
  const dir = mkdtempSync(path.join(tmpdir(), "delegate-remote-e2e-"));
  const file = path.join(dir, "subagents.json");
  writeFileSync(file, JSON.stringify({ subagents }));
  try {
    const app = await startHostileApp({
      workspaceFiles: {},
      env: { SUBAGENTS_FILE: file },
      handler: delegatingMaster({ agent: "warehouse", answer: "The warehouse has answered." }),
    });
    return {
      ...app,
      stop: async () => {
        await app.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
