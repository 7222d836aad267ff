import { createHash } from "node:crypto";
import { constants, type BigIntStats } from "node:fs";
import { lstat, mkdir, open, realpath, type FileHandle } from "node:fs/promises";
import path from "node:path";
import { formatBytes, isBinarySample } from "./text-files";
import { ToolError } from "./types";
import { displayPath, isInGitFolder, isInside, resolveInWorkspace, workspaceRoot } from "./workspace-path";

/** Largest file the edit tools write or edit: they hold the whole text in memory. */
export const MAX_WRITE_BYTES = 1024 * 1024;

/**
 * Which file a target is, as the person approved it: device and inode (a path can be made
 * to lead to another file; an inode cannot) and a digest of its bytes. Taken from the
 * open handle's own fstat, never from a second look at the path.
 */
export interface FileIdentity {
  dev: bigint;
  ino: bigint;
  sha256: string;
}

/** A file the edit tools may write: its real path (it may not exist yet) and how the model names it. */
export interface WriteTarget {
  root: string;
  file: string;
  shown: string;
  /** Its text now, or null when it does not exist yet. */
  current: string | null;
  /** Which file it is, or null when it does not exist yet (then only a new file may be created). */
  identity: FileIdentity | null;
}

export interface WriteOptions {
  /**
   * Whether files under a `.git` folder may be written. Off by default: hooks and config
   * there run code on the next git command, which no diff of one file shows.
   */
  allowGitWrites?: boolean;
}

const CONTROL_CHAR = /\p{Cc}/u;

/**
 * Resolves a path to write inside the workspace, with the guards reading has: the lexical
 * check and the symlink check of `resolveInWorkspace` for what exists, and for a new
 * file, the same checks on its nearest existing folder (so a symlinked folder cannot lead
 * a new file out). Only regular files with one link are ever opened, never blocking on a
 * FIFO; `.git` is refused unless `allowGitWrites`.
 */
export async function resolveWriteTarget(workspaceDir: string, requested: string, options: WriteOptions = {}): Promise<WriteTarget> {
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
  if (CONTROL_CHAR.test(shown)) {
    throw new ToolError(`${JSON.stringify(shown)} holds a line break or another control character; such a file name is refused.`);
  }
  if (!options.allowGitWrites && isInGitFolder(shown)) {
    throw new ToolError(
      `"${shown}" is inside a .git folder: the repository's hooks and config there run code on the next git command, so the edit tools do not write it (the operator can allow it with ALLOW_GIT_WRITES).`,
    );
  }
  return { root, file, shown, ...(await currentState(file, shown)) };
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

async function currentState(file: string, shown: string): Promise<Pick<WriteTarget, "current" | "identity">> {
  let info;
  try {
    info = await lstat(file);
  } catch {
    return { current: null, identity: null };
  }
  if (info.isDirectory()) throw new ToolError(`"${shown}" is a folder; give the path of a file.`);
  if (!info.isFile()) throw new ToolError(`"${shown}" is not a regular file (a pipe, socket or device); it is refused.`);
  if (info.size > MAX_WRITE_BYTES) {
    throw new ToolError(`"${shown}" is ${formatBytes(info.size)}; the edit tools handle files up to ${formatBytes(MAX_WRITE_BYTES)}.`);
  }
  const handle = await openNoFollow(file, shown, constants.O_RDONLY);
  try {
    const stat = await handle.stat({ bigint: true });
    checkOpened(stat, shown);
    const bytes = await handle.readFile();
    if (isBinarySample(bytes)) throw new ToolError(`"${shown}" is a binary file; the edit tools only change text.`);
    return { current: bytes.toString("utf8"), identity: { dev: stat.dev, ino: stat.ino, sha256: digest(bytes) } };
  } finally {
    await handle.close();
  }
}

function digest(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * Opens without following a symlink at the last step (`O_NOFOLLOW`) and without blocking
 * (`O_NONBLOCK`: a FIFO swapped in has no reader and fails at once).
 */
async function openNoFollow(file: string, shown: string, flags: number): Promise<FileHandle> {
  try {
    return await open(file, flags | constants.O_NONBLOCK | constants.O_NOFOLLOW, 0o644);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ELOOP") throw new ToolError(`"${shown}" became a symbolic link; it is refused.`);
    if (code === "ENXIO" || code === "EISDIR") throw new ToolError(`"${shown}" is not a regular file; it is refused.`);
    if (code === "EACCES" || code === "EPERM") throw new ToolError(`"${shown}" cannot be written: permission denied.`);
    throw error;
  }
}

/** What an opened handle must be before it is read or written: a regular file with no second name. */
function checkOpened(stat: BigIntStats, shown: string): void {
  if (!stat.isFile()) throw new ToolError(`"${shown}" is not a regular file; it is refused.`);
  // Another name for the same file may sit outside the workspace, where no check reaches.
  if (stat.nlink > 1n) {
    throw new ToolError(
      `"${shown}" has ${stat.nlink} hard links (other names for the same file, maybe outside the workspace); it is refused.`,
    );
  }
}

/**
 * Refuses when the file is no longer the one a person approved: another file behind the
 * path (a symlink or rename swapped in), created or removed meanwhile, or its text changed.
 * Nothing has been written when this throws.
 */
export function assertUnchanged(approved: WriteTarget, now: WriteTarget): void {
  const changed = (how: string) =>
    new ToolError(
      `"${approved.shown}" changed since it was approved (${how}); nothing was written. Read it again and make the change anew.`,
    );
  if (now.shown !== approved.shown) throw changed(`the path now leads to "${now.shown}"`);
  const [was, is] = [approved.identity, now.identity];
  if (was === null && is !== null) throw changed("a file by that name was created meanwhile");
  if (was !== null && is === null) throw changed("it was removed");
  if (was === null || is === null) return;
  if (was.dev !== is.dev || was.ino !== is.ino) throw changed("another file was put in its place");
  if (was.sha256 !== is.sha256) throw changed("its text is different");
}

/**
 * Writes `text` to the target, creating its missing folders (inside the workspace: the
 * path was resolved against its real folders). A new file is created with `O_EXCL`, so
 * nothing that appeared meanwhile is overwritten; an existing one is opened without
 * `O_CREAT` and must be, by its handle's fstat, the very file resolved (device and inode),
 * a regular file of one link, before anything is truncated. The write goes through that
 * handle in place: there is no rename, so no second path to check.
 */
export async function writeTarget(target: WriteTarget, text: string): Promise<void> {
  const bytes = Buffer.from(text, "utf8");
  if (bytes.length > MAX_WRITE_BYTES) {
    throw new ToolError(
      `The new text of "${target.shown}" would be ${formatBytes(bytes.length)}; at most ${formatBytes(MAX_WRITE_BYTES)} can be written.`,
    );
  }
  const { identity, shown } = target;
  const changed = (how: string) => new ToolError(`"${shown}" changed since it was checked (${how}); nothing was written.`);
  if (identity === null) {
    await mkdir(path.dirname(target.file), { recursive: true });
    // The folders made above may have raced with a symlink: check where the file really lands.
    if (!isInside(target.root, await realpath(path.dirname(target.file)))) {
      throw new ToolError(`"${shown}" now leads outside the workspace; it is refused.`);
    }
  }
  let handle: FileHandle;
  try {
    handle = await openNoFollow(target.file, shown, constants.O_WRONLY | (identity === null ? constants.O_CREAT | constants.O_EXCL : 0));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") throw changed("a file by that name was created meanwhile");
    if (code === "ENOENT") throw changed("it was removed");
    throw error;
  }
  try {
    const stat = await handle.stat({ bigint: true });
    checkOpened(stat, shown);
    if (identity !== null && (stat.dev !== identity.dev || stat.ino !== identity.ino)) throw changed("another file was put in its place");
    await handle.truncate(0);
    await handle.write(bytes, 0, bytes.length, 0);
  } finally {
    await handle.close();
  }
}
