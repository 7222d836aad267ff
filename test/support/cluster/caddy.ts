import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { freePort } from "../free-port";

/**
 * Debian's Caddy in front of cluster nodes, with the deployment's own proxy rules
 * (deploy/Caddyfile): only the address it listens on and the upstreams change (loopback
 * ports instead of the compose service names), and its admin API is off so parallel runs
 * cannot collide. `scripts/ensure-test-deps.sh` installs the package when it is missing.
 */
export interface TestCaddy {
  url: string;
  stop(): Promise<void>;
}

export const CADDY_PATH = process.env.CADDY_PATH ?? "caddy";
const DEPLOY_CADDYFILE = "deploy/Caddyfile";

/** The deployment's Caddyfile, listening on `port` and proxying to `upstreams` (host:port). */
export function testCaddyfile(port: number, upstreams: string[]): string {
  const deployed = readFileSync(DEPLOY_CADDYFILE, "utf8");
  const site = /^:3000 \{$/m;
  const proxy = /reverse_proxy app-a:3000 app-b:3000 \{/;
  if (!site.test(deployed) || !proxy.test(deployed))
    throw new Error(`${DEPLOY_CADDYFILE} no longer has the site and upstream lines this test rewrites`);
  return deployed
    .replace("auto_https off", "auto_https off\n\tadmin off")
    .replace(site, `:${port} {`)
    .replace(proxy, `reverse_proxy ${upstreams.join(" ")} {`);
}

export async function startCaddy(upstreams: string[]): Promise<TestCaddy> {
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), "delegate-caddy-"));
  const config = path.join(dir, "Caddyfile");
  writeFileSync(config, testCaddyfile(port, upstreams));
  const child: ChildProcess = spawn(CADDY_PATH, ["run", "--config", config, "--adapter", "caddyfile"], {
    env: { ...process.env, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir, HOME: dir },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  child.stderr?.on("data", (d: Buffer) => (log = (log + d.toString()).slice(-3000)));
  await new Promise<void>((resolve, reject) => {
    child.once("error", (error) => reject(new Error(`could not start ${CADDY_PATH} (install Debian's caddy): ${error.message}`)));
    child.once("spawn", () => resolve());
  });
  process.once("exit", () => child.kill("SIGKILL"));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`caddy exited during start: ${log}`);
    try {
      if ((await fetch(`${url}/api/health`, { signal: AbortSignal.timeout(2_000) })).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`caddy did not proxy /api/health within 15 s: ${log}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        await new Promise<void>((resolve) => {
          child.once("exit", () => resolve());
          child.kill("SIGTERM");
        });
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
