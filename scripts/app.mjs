#!/usr/bin/env node
// `npm run app`: install and build only what changed since the last start, then serve.
// A restart with nothing changed goes straight to the server (it used to reinstall and
// rebuild every time: 22 s). `npm start` serves without either check.
import { spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
process.chdir(root);

/** What the build reads: sources, styles, public files and the configs. */
const BUILD_INPUTS = ["app", "components", "lib", "public", "next.config.mjs", "postcss.config.mjs", "tsconfig.json", "package-lock.json"];
const INSTALL_STAMP = "node_modules/.delegate-lock-hash";
const BUILD_STAMP = ".next/.delegate-source-hash";

function run(command, args) {
  const result = spawnSync(command, args, { stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

function hashOf(paths) {
  const hash = createHash("sha256");
  const visit = (p) => {
    if (!existsSync(p)) return;
    const stat = statSync(p);
    if (stat.isDirectory()) {
      for (const name of readdirSync(p).sort()) visit(path.join(p, name));
    } else {
      hash.update(p).update("\0").update(readFileSync(p));
    }
  };
  for (const p of paths) visit(p);
  return hash.digest("hex");
}

const read = (file) => (existsSync(file) ? readFileSync(file, "utf8") : "");

const lockHash = hashOf(["package-lock.json"]);
if (read(INSTALL_STAMP) !== lockHash) {
  console.log("Installing dependencies (package-lock.json changed)…");
  run("npm", ["install", "--no-audit", "--no-fund"]);
  writeFileSync(INSTALL_STAMP, lockHash);
}

const sourceHash = hashOf(BUILD_INPUTS);
if (read(BUILD_STAMP) !== sourceHash || !existsSync(".next/BUILD_ID")) {
  console.log("Building the app (sources changed)…");
  run("npx", ["next", "build"]);
  writeFileSync(BUILD_STAMP, sourceHash);
}

// The server in the foreground; a stop signal is passed on so it can end its turns cleanly.
const server = spawn("npx", ["tsx", "server/index.ts"], { stdio: "inherit" });
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.kill(signal));
server.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
