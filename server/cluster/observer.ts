/**
 * What the cluster tells whoever counts (server/metrics/): how late another process's
 * events reach this one, and each dead process's turn this one took over. Optional: the
 * cluster runs the same without it.
 */
export interface ClusterObserver {
  /** An event another process published reached this one `seconds` after Redis stored it. */
  relayLag(seconds: number): void;
  /** This process took over the lease of a process that stopped renewing it (a ghost takeover). */
  takeover(): void;
}
