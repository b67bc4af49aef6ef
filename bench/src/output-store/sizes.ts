/** Workload sizes of the output-store benchmark: the figures, or tiny ones for smoke runs. */
export interface OutputStoreSizes {
  emits: number;
  emitBodyBytes: number;
  streamBodies: number;
  streamBodyBytes: number;
  httpPosts: number;
  httpClients: number;
  getRecords: number;
  getSamples: number;
}

/** Sizes for a full or smoke run. */
export function outputStoreSizes(smoke: boolean): OutputStoreSizes {
  return smoke
    ? {
        emits: 10_000,
        emitBodyBytes: 1024,
        streamBodies: 2,
        streamBodyBytes: 1 << 20,
        // The full run's 16 clients, so the intake rows measure the same thing, only for less long.
        httpPosts: 3_000,
        httpClients: 16,
        getRecords: 5_000,
        getSamples: 2_000,
      }
    : {
        emits: 100_000,
        emitBodyBytes: 1024,
        streamBodies: 20,
        streamBodyBytes: 50 << 20,
        httpPosts: 10_000,
        httpClients: 16,
        getRecords: 1_000_000,
        getSamples: 50_000,
      };
}
