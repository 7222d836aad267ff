// Types for scripts/check-imports.mjs, so its tests type-check.
export interface AllowedCycle {
  files: string[];
}
export interface LayerRule {
  from: string[];
  to?: string[];
  onlyTo?: string[];
  why: string;
  productionOnly?: boolean;
}
export const ALLOWED_CYCLES: AllowedCycle[];
export const LAYER_RULES: LayerRule[];
export function importSpecifiers(sourceText: string): string[];
export function isTestFile(relativePath: string): boolean;
export function resolveSpecifier(fromFile: string, specifier: string, exists: (path: string) => boolean): string | null | undefined;
export function findCycles(graph: Map<string, string[]>, limit?: number): string[][];
export function stronglyConnectedComponents(graph: Map<string, string[]>): string[][];
export function applyAllowList(
  cycles: string[][],
  allowList: AllowedCycle[],
): { reported: string[][]; allowed: string[][]; stale: AllowedCycle[] };
export function checkRepository(root: string, allowList?: AllowedCycle[]): { problems: string[]; allowed: string[][] };
