import fc from "fast-check";
import { inject } from "vitest";

/**
 * Every property test of a run draws from the run's seed (see global-setup.ts): a new one
 * each run, so CI keeps exploring, and printed at the start, so any failure replays with
 * FC_SEED=<seed>. fast-check also prints the seed and path of a failing property.
 */
fc.configureGlobal({ seed: inject("fcSeed") });
