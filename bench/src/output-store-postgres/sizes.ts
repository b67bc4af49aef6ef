/** Workload sizes of the PostgreSQL store benchmark. */
export interface PostgresStoreSizes {
  /** Sequential 1 KiB EMITs per side. */
  emits: number;
  emitBodyBytes: number;
  /** Records in the store when `get` latency is sampled. */
  getRecords: number;
  getSamples: number;
}

/** Sizes for a full or smoke run. */
export function postgresStoreSizes(smoke: boolean): PostgresStoreSizes {
  return smoke
    ? { emits: 5_000, emitBodyBytes: 1024, getRecords: 5_000, getSamples: 1_000 }
    : { emits: 20_000, emitBodyBytes: 1024, getRecords: 100_000, getSamples: 20_000 };
}
