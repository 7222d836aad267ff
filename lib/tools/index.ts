import { fileEditTool } from "./file-edit";
import { fileReadTool } from "./file-read";
import { fileWriteTool } from "./file-write";
import { grepTool } from "./grep";
import { listFilesTool } from "./list-files";
import type { Tool } from "./types";
import { createUrlFetchTool, type UrlFetchOptions } from "./url-fetch";

export { fileReadTool, MAX_READ_BYTES } from "./file-read";
export { fileWriteTool } from "./file-write";
export { fileEditTool } from "./file-edit";
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
}

/**
 * The tools agents get: file tools over the workspace from ToolContext (the edit tools
 * need a person's approval for every call), plus url_fetch when enabled.
 */
export function createWorkspaceTools(options: WorkspaceToolsOptions = {}): Tool[] {
  const tools: Tool[] = [listFilesTool, fileReadTool, grepTool, fileWriteTool, fileEditTool];
  if (options.urlFetch?.enabled) tools.push(createUrlFetchTool(options.urlFetch));
  return tools;
}
