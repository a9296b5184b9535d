/** The live probe's time budget, in a module without Node imports so the edge probe can share it. */

/** Budget for the whole probe, resolution included, in milliseconds. */
export const PROBE_TIMEOUT_MS = 5_000;
