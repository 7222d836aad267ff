import { realpath } from "node:fs/promises";
import path from "node:path";
import { ToolError } from "./types";

/**
 * Resolves a path the model asked for to a real path inside the workspace, or refuses.
 * Checked twice: lexically (so `..` and foreign absolute paths never touch the disk) and
 * after `realpath` (so a symlink inside the workspace cannot lead out of it).
 */
export async function resolveInWorkspace(workspaceDir: string, requested: string): Promise<string> {
  if (typeof requested !== "string") throw new ToolError("The path must be a string.");
  if (requested.includes("\0")) throw new ToolError("The path contains a NUL byte; no file name can.");
  const asked = requested.trim() === "" ? "." : requested.trim();
  const root = await workspaceRoot(workspaceDir);

  if (path.isAbsolute(asked)) {
    const absolute = path.resolve(asked);
    if (absolute === "/proc" || absolute.startsWith("/proc/")) {
      throw new ToolError(`"${requested}" is under /proc, which is refused; only workspace files can be read.`);
    }
    if (!isInside(root, absolute)) {
      throw new ToolError(`"${requested}" is outside the workspace. Paths are relative to the workspace root, e.g. "docs/README.md".`);
    }
  }
  const candidate = path.resolve(root, asked);
  if (!isInside(root, candidate)) {
    throw new ToolError(`"${requested}" leads outside the workspace (through ".."); paths must stay inside it.`);
  }

  let real: string;
  try {
    real = await realpath(candidate);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") {
      throw new ToolError(`There is no file or folder "${displayPath(root, candidate)}" in the workspace.`);
    }
    if (code === "EACCES") throw new ToolError(`"${requested}" cannot be opened: permission denied.`);
    if (code === "ELOOP") throw new ToolError(`"${requested}" is a symbolic link loop.`);
    throw error;
  }
  if (!isInside(root, real)) {
    throw new ToolError(`"${requested}" is a symbolic link that points outside the workspace; it is refused.`);
  }
  return real;
}

/** The workspace's real path: the containment checks compare real paths only. */
export async function workspaceRoot(workspaceDir: string): Promise<string> {
  try {
    return await realpath(workspaceDir);
  } catch {
    throw new ToolError("The workspace folder does not exist, so there are no files to work with.");
  }
}

export function isInside(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

/** How tools name a path to the model: relative to the workspace root, `/`-separated, `.` for the root. */
export function displayPath(root: string, absolute: string): string {
  const relative = path.relative(root, absolute);
  return relative === "" ? "." : relative.split(path.sep).join("/");
}

/** Whether a workspace-relative path (as `displayPath` gives it) has a `.git` segment; any case, for case-insensitive disks. */
export function isInGitFolder(shown: string): boolean {
  return shown.split("/").some((segment) => segment.toLowerCase() === ".git");
}
