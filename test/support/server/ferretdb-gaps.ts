import { inject } from "vitest";

/**
 * What FerretDB 1.x lacks that a test needs and that has no equal MongoDB-7 form the app
 * could use instead (where one exists, the app uses it and the test runs everywhere).
 * A test that needs one of these is skipped on the FerretDB run only:
 * `it.skipIf(lacks("nestedArrays"))(…)`, so the skip names its reason.
 */
export const FERRETDB_GAPS = {
  nestedArrays:
    "stores no arrays of arrays: rows written before step times became subdocuments cannot be put on it " +
    "(and no FerretDB database holds them, since such writes always failed there)",
  atomicInc:
    "loses additions when many `$inc` updates of one document run at once over several connections " +
    "(each answers success; the stored sum ends short of theirs), so a race on one counter cannot be measured there",
} as const;

/** True on the FerretDB run when it lacks `gap`. */
export function lacks(gap: keyof typeof FERRETDB_GAPS): boolean {
  return inject("databaseServer") === "ferretdb" && gap in FERRETDB_GAPS;
}
