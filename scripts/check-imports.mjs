// Checks the import structure of the TypeScript sources in app/, components/, lib/,
// server/ and models/, and exits 1 naming the files when:
//   - production files (not *.test.*) import each other in a cycle: a module in a cycle
//     can be read before it has finished loading, and the folders stop being layers;
//   - lib/, server/ or models/ import from components/ or app/ (the core and the server
//     must not depend on React or on routes);
//   - lib/ imports from server/ or models/ (lib/ is the pure core: no sockets, no mongoose);
//   - components/ imports from server/ or models/ (React only; data comes over the wire);
//   - lib/contracts/ imports any other file of ours (the one module both sides share);
//   - anything here imports from test/, e2e/ or bench/ (test code stays out of production).
// Every import counts: `import type`, `export … from`, `import("…")` and type queries,
// since a cycle of types still ties the modules together for a reader. Specifiers are read
// by TypeScript's own pre-processor (already a dependency), so imports inside comments or
// strings are not mistaken for real ones. "@/x" resolves to the repository root, as the
// tsconfig "paths" entry says; bare package names are not followed.
//
// Usage: node scripts/check-imports.mjs [repository root]
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const SOURCE_DIRS = ["app", "components", "lib", "server", "models"];
const SOURCE_EXTENSIONS = [".ts", ".tsx"];

/**
 * Cycles known and being fixed elsewhere. A cycle passes when every file in it belongs to
 * one group here. Remove a group once its cycle is broken: the check fails on a group that
 * no longer forms any cycle, so an entry cannot outlive its reason and hide a new cycle.
 */
export const ALLOWED_CYCLES = [];

/**
 * Layer rules: a file under `from` must not import a file under any of `to` (or, with
 * `onlyTo`, any file outside those folders). They apply to tests as well as production
 * files (a test importing across a layer usually means the module it needs sits in the
 * wrong place), except where `productionOnly` says otherwise.
 */
export const LAYER_RULES = [
  { from: ["lib/", "server/", "models/"], to: ["components/", "app/"], why: "the core and the server must not depend on React or routes" },
  { from: ["lib/"], to: ["server/", "models/"], why: "lib/ is the pure core: no sockets, no mongoose" },
  { from: ["components/"], to: ["server/", "models/"], why: "components/ is React only" },
  {
    from: ["lib/contracts/"],
    onlyTo: ["lib/contracts/"],
    why: "the contract both sides share depends on nothing of ours",
    productionOnly: true,
  },
  {
    from: SOURCE_DIRS.map((d) => `${d}/`),
    to: ["test/", "e2e/", "bench/"],
    why: "test and bench code stays out of the app",
    productionOnly: true,
  },
];

/** The module specifiers a source text imports or re-exports, in order of appearance. */
export function importSpecifiers(sourceText) {
  return ts.preProcessFile(sourceText, true, true).importedFiles.map((f) => f.fileName);
}

export function isTestFile(relativePath) {
  return /\.test\.tsx?$/.test(relativePath);
}

/**
 * Resolves a specifier written in `fromFile` (both repository-relative, "/"-separated) to a
 * repository-relative path, or undefined for a package. Returns null for a local specifier
 * that matches no file. `exists(p)` says whether p is a file.
 */
export function resolveSpecifier(fromFile, specifier, exists) {
  let base;
  if (specifier.startsWith("@/")) base = specifier.slice(2);
  else if (specifier.startsWith("./") || specifier.startsWith("../")) base = path.posix.join(path.posix.dirname(fromFile), specifier);
  else return undefined;
  base = path.posix.normalize(base);
  const candidates = [base];
  // TypeScript lets "./x.js" name "./x.ts".
  const jsExtension = /\.(m|c)?jsx?$/.exec(base);
  if (jsExtension) {
    const stem = base.slice(0, -jsExtension[0].length);
    candidates.push(`${stem}.ts`, `${stem}.tsx`);
  }
  for (const ext of SOURCE_EXTENSIONS) candidates.push(base + ext);
  for (const ext of SOURCE_EXTENSIONS) candidates.push(`${base}/index${ext}`);
  return candidates.find((c) => exists(c)) ?? null;
}

/**
 * Every elementary cycle of a directed graph (a Map from node to the nodes it points at),
 * each once, as a path that starts at its alphabetically smallest node and ends where it
 * started ([a, b, a]). Cycles are searched only inside strongly connected components, so
 * the acyclic bulk of the graph costs one linear pass. `limit` bounds the number returned.
 */
export function findCycles(graph, limit = 200) {
  const cycles = [];
  for (const component of stronglyConnectedComponents(graph)) {
    const members = [...component].sort();
    const isSelfLoop = members.length === 1 && (graph.get(members[0]) ?? []).includes(members[0]);
    if (members.length === 1 && !isSelfLoop) continue;
    // A cycle is found from its smallest node, walking only through larger ones, so each
    // cycle is reported once and not once per rotation.
    for (const [rank, start] of members.entries()) {
      const allowed = new Set(members.slice(rank));
      const pathSoFar = [start];
      const onPath = new Set([start]);
      const walk = (node) => {
        for (const next of [...new Set(graph.get(node) ?? [])].sort()) {
          if (cycles.length >= limit) return;
          if (next === start) cycles.push([...pathSoFar, start]);
          else if (allowed.has(next) && !onPath.has(next)) {
            pathSoFar.push(next);
            onPath.add(next);
            walk(next);
            onPath.delete(next);
            pathSoFar.pop();
          }
        }
      };
      walk(start);
    }
  }
  return cycles;
}

/** Tarjan's algorithm, iterative so a long import chain cannot overflow the stack. */
export function stronglyConnectedComponents(graph) {
  const nodes = new Set(graph.keys());
  for (const targets of graph.values()) for (const t of targets) nodes.add(t);
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const components = [];
  let counter = 0;
  for (const root of [...nodes].sort()) {
    if (index.has(root)) continue;
    const work = [{ node: root, next: 0 }];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const targets = graph.get(frame.node) ?? [];
      if (frame.next < targets.length) {
        const target = targets[frame.next++];
        if (!index.has(target)) {
          index.set(target, counter);
          low.set(target, counter++);
          stack.push(target);
          onStack.add(target);
          work.push({ node: target, next: 0 });
        } else if (onStack.has(target)) {
          low.set(frame.node, Math.min(low.get(frame.node), index.get(target)));
        }
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1].node;
        low.set(parent, Math.min(low.get(parent), low.get(frame.node)));
      }
      if (low.get(frame.node) === index.get(frame.node)) {
        const component = [];
        let member;
        do {
          member = stack.pop();
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        components.push(component);
      }
    }
  }
  return components;
}

/** Splits cycles into those an allow-list group covers and the rest, and names unused groups. */
export function applyAllowList(cycles, allowList) {
  const used = new Set();
  const reported = [];
  const allowed = [];
  for (const cycle of cycles) {
    const group = allowList.findIndex((entry) => cycle.every((file) => entry.files.includes(file)));
    if (group === -1) reported.push(cycle);
    else {
      allowed.push(cycle);
      used.add(group);
    }
  }
  const stale = allowList.filter((_, i) => !used.has(i));
  return { reported, allowed, stale };
}

function listSources(root) {
  const files = [];
  const visit = (dir) => {
    const absolute = path.join(root, dir);
    if (!existsSync(absolute)) return;
    for (const entry of readdirSync(absolute, { withFileTypes: true })) {
      if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
      const relative = `${dir}/${entry.name}`;
      if (entry.isDirectory()) visit(relative);
      else if (SOURCE_EXTENSIONS.some((ext) => entry.name.endsWith(ext)) && !entry.name.endsWith(".d.ts")) files.push(relative);
    }
  };
  for (const dir of SOURCE_DIRS) visit(dir);
  return files.sort();
}

/**
 * Runs every check over the repository at `root`: the problems as lines of text, and the
 * cycles the allow-list let through.
 */
export function checkRepository(root, allowList = ALLOWED_CYCLES) {
  const exists = (relative) => {
    const absolute = path.join(root, relative);
    return existsSync(absolute) && statSync(absolute).isFile();
  };
  const problems = [];
  const graph = new Map();
  for (const file of listSources(root)) {
    const targets = [];
    for (const specifier of importSpecifiers(readFileSync(path.join(root, file), "utf8"))) {
      const target = resolveSpecifier(file, specifier, exists);
      if (target === undefined) continue;
      if (target === null) {
        problems.push(`${file}: "${specifier}" matches no file`);
        continue;
      }
      for (const rule of LAYER_RULES) {
        if (rule.productionOnly && isTestFile(file)) continue;
        if (!rule.from.some((p) => file.startsWith(p))) continue;
        const crosses = rule.onlyTo ? !rule.onlyTo.some((p) => target.startsWith(p)) : rule.to.some((p) => target.startsWith(p));
        if (crosses) {
          problems.push(`${file} imports ${target} (${rule.why})`);
        }
      }
      targets.push(target);
    }
    if (!isTestFile(file))
      graph.set(
        file,
        targets.filter((t) => SOURCE_DIRS.some((d) => t.startsWith(`${d}/`)) && !isTestFile(t)),
      );
  }
  const { reported, allowed, stale } = applyAllowList(findCycles(graph), allowList);
  for (const cycle of reported) problems.push(`import cycle: ${cycle.join(" → ")}`);
  for (const entry of stale) {
    problems.push(
      `ALLOWED_CYCLES in scripts/check-imports.mjs lists ${entry.files.join(", ")}, which no longer import each other in a cycle: remove the entry`,
    );
  }
  return { problems, allowed };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), ".."));
  const { problems, allowed } = checkRepository(root);
  for (const cycle of allowed) console.log(`allowed for now (ALLOWED_CYCLES): ${cycle.join(" → ")}`);
  if (problems.length > 0) {
    console.error(`Import structure: ${problems.length} problem(s)`);
    for (const line of problems) console.error(`  ${line}`);
    process.exit(1);
  }
  console.log(`Import structure: no import across a layer, no cycle${allowed.length ? " but the allowed ones above" : ""}`);
}
