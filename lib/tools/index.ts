import { createFileEditTool } from "./file-edit";
import { fileReadTool } from "./file-read";
import { createFileWriteTool } from "./file-write";
import { grepTool } from "./grep";
import { listFilesTool } from "./list-files";
import type { Tool } from "./types";
import { createUrlFetchTool, type UrlFetchOptions } from "./url-fetch";

export { fileReadTool, MAX_READ_BYTES } from "./file-read";
export { createFileWriteTool, fileWriteTool } from "./file-write";
export { createFileEditTool, fileEditTool } from "./file-edit";
export { MAX_WRITE_BYTES } from "./writable-file";
export { grepTool, DEFAULT_GREP_MATCHES, MAX_GREP_MATCHES, MAX_GREP_FILE_BYTES } from "./grep";
export { listFilesTool, MAX_LIST_ENTRIES } from "./list-files";
export { createUrlFetchTool, type UrlFetchOptions } from "./url-fetch";
export { resolveInWorkspace } from "./workspace-path";
export { refusalReason } from "./address-policy";
export { htmlToText } from "./html-text";

export interface WorkspaceToolsOptions {
  /** url_fetch is off unless enabled: it is the only tool that reaches beyond the workspace. */
  urlFetch?: UrlFetchOptions & { enabled: boolean };
  /** Whether the edit tools may write under a `.git` folder (ALLOW_GIT_WRITES); off by default. */
  allowGitWrites?: boolean;
}

/**
 * The tools agents get: file tools over the workspace from ToolContext (the edit tools
 * need a person's approval for every call), plus url_fetch when enabled.
 */
export function createWorkspaceTools(options: WorkspaceToolsOptions = {}): Tool[] {
  const write = { allowGitWrites: options.allowGitWrites ?? false };
  const tools: Tool[] = [listFilesTool, fileReadTool, grepTool, createFileWriteTool(write), createFileEditTool(write)];
  if (options.urlFetch?.enabled) tools.push(createUrlFetchTool(options.urlFetch));
  return tools;
}
