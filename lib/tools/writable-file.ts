import { constants } from "node:fs";
import { lstat, mkdir, open, realpath } from "node:fs/promises";
import path from "node:path";
import { formatBytes, isBinarySample, openRegularFile } from "./text-files";
import { ToolError } from "./types";
import { displayPath, isInside, resolveInWorkspace, workspaceRoot } from "./workspace-path";

/** Largest file the edit tools write or edit: they hold the whole text in memory. */
export const MAX_WRITE_BYTES = 1024 * 1024;

/** A file the edit tools may write: its real path (it may not exist yet) and how the model names it. */
export interface WriteTarget {
  root: string;
  file: string;
  shown: string;
  /** Its text now, or null when it does not exist yet. */
  current: string | null;
}

/**
 * Resolves a path to write inside the workspace, with the guards reading has: the lexical
 * check and the symlink check of `resolveInWorkspace` for what exists, and for a new
 * file, the same checks on its nearest existing folder (so a symlinked folder cannot lead
 * a new file out). Only regular files are ever opened, never blocking on a FIFO.
 */
export async function resolveWriteTarget(workspaceDir: string, requested: string): Promise<WriteTarget> {
  const root = await workspaceRoot(workspaceDir);
  if (typeof requested !== "string" || requested.trim() === "" || requested.trim() === ".") {
    throw new ToolError("Give the path of a file to write, relative to the workspace root.");
  }
  let file: string;
  try {
    file = await resolveInWorkspace(root, requested);
  } catch (error) {
    if (!(error instanceof ToolError) || !/^There is no file or folder/.test(error.message)) throw error;
    file = await newFilePath(root, requested);
  }
  const shown = displayPath(root, file);
  return { root, file, shown, current: await currentText(file, shown) };
}

/** A path that does not exist yet: its nearest existing ancestor must be a real folder inside the workspace. */
async function newFilePath(root: string, requested: string): Promise<string> {
  const candidate = path.resolve(root, requested.trim());
  let existing = path.dirname(candidate);
  for (;;) {
    try {
      await lstat(existing);
      break;
    } catch {
      existing = path.dirname(existing);
    }
  }
  const realParent = await realpath(existing);
  if (!isInside(root, realParent)) {
    throw new ToolError(`"${requested}" is inside a symbolic link that points outside the workspace; it is refused.`);
  }
  if (!(await lstat(realParent)).isDirectory()) {
    throw new ToolError(`"${displayPath(root, existing)}" is a file, so "${requested}" cannot be created under it.`);
  }
  return path.join(realParent, path.relative(existing, candidate));
}

async function currentText(file: string, shown: string): Promise<string | null> {
  let info;
  try {
    info = await lstat(file);
  } catch {
    return null;
  }
  if (info.isDirectory()) throw new ToolError(`"${shown}" is a folder; give the path of a file.`);
  if (!info.isFile()) throw new ToolError(`"${shown}" is not a regular file (a pipe, socket or device); it is refused.`);
  if (info.size > MAX_WRITE_BYTES) {
    throw new ToolError(`"${shown}" is ${formatBytes(info.size)}; the edit tools handle files up to ${formatBytes(MAX_WRITE_BYTES)}.`);
  }
  const handle = await openRegularFile(file, shown);
  try {
    const bytes = await handle.readFile();
    if (isBinarySample(bytes)) throw new ToolError(`"${shown}" is a binary file; the edit tools only change text.`);
    return bytes.toString("utf8");
  } finally {
    await handle.close();
  }
}

/**
 * Writes `text` to the target, creating its missing folders (inside the workspace: the
 * path was resolved against its real folders). The open never blocks (`O_NONBLOCK`: a
 * FIFO swapped in meanwhile has no reader and fails at once), never follows a symlink
 * swapped in for the file (`O_NOFOLLOW`), and the handle's own fstat must say "regular
 * file" before anything is truncated.
 */
export async function writeTarget(target: WriteTarget, text: string): Promise<void> {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length > MAX_WRITE_BYTES) {
    throw new ToolError(
      `The new text of "${target.shown}" would be ${formatBytes(bytes.length)}; at most ${formatBytes(MAX_WRITE_BYTES)} can be written.`,
    );
  }
  await mkdir(path.dirname(target.file), { recursive: true });
  // The folders made above may have raced with a symlink: check where the file really lands.
  if (!isInside(target.root, await realpath(path.dirname(target.file)))) {
    throw new ToolError(`"${target.shown}" now leads outside the workspace; it is refused.`);
  }
  let handle;
  try {
    handle = await open(target.file, constants.O_WRONLY | constants.O_CREAT | constants.O_NONBLOCK | constants.O_NOFOLLOW, 0o644);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw new ToolError(`"${target.shown}" became a symbolic link; it is refused.`);
    if (code === "ENXIO" || code === "EISDIR") throw new ToolError(`"${target.shown}" is not a regular file; it is refused.`);
    if (code === "EACCES" || code === "EPERM") throw new ToolError(`"${target.shown}" cannot be written: permission denied.`);
    throw error;
  }
  try {
    if (!(await handle.stat()).isFile()) throw new ToolError(`"${target.shown}" is not a regular file; it is refused.`);
    await handle.truncate(0);
    await handle.write(bytes, 0, bytes.length, 0);
  } finally {
    await handle.close();
  }
}
