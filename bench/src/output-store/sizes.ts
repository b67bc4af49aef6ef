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

/** The parts of the output-store benchmark, in the order they run. */
const outputStorePartNames = ['ingest', 'emit', 'intake', 'get'] as const;

/** One part of the output-store benchmark (see {@link outputStoreParts}). */
export type OutputStorePart = (typeof outputStorePartNames)[number];

/**
 * The parts to run: all of them, or those named in `WHARF_BENCH_OUTPUT_STORE_ROWS` (a
 * comma-separated list of `ingest`, `emit`, `intake`, `get`), e.g. the HTTP intake rows alone.
 *
 * @example
 * ```ts
 * outputStoreParts('intake'); // Set { 'intake' }
 * outputStoreParts(undefined); // every part
 * ```
 */
export function outputStoreParts(selection: string | undefined): ReadonlySet<OutputStorePart> {
  const names = (selection ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  if (names.length === 0) return new Set(outputStorePartNames);
  const unknown = names.filter((name) => !(outputStorePartNames as readonly string[]).includes(name));
  if (unknown.length > 0)
    throw new Error(
      `WHARF_BENCH_OUTPUT_STORE_ROWS names ${unknown.join(', ')}; the parts are ${outputStorePartNames.join(', ')}`,
    );
  return new Set(names as OutputStorePart[]);
}

/**
 * Whether the intake's SQLite store commits in its writer thread (`writerThread`): only when
 * `WHARF_BENCH_INTAKE_WRITER_THREAD` is `1`. The judged rows measure what a store runs by
 * default; the thread is opt-in (`WHARF_SQLITE_WRITER_THREAD=1`).
 *
 * @example
 * ```ts
 * intakeWriterThread(process.env.WHARF_BENCH_INTAKE_WRITER_THREAD); // true only for '1'
 * ```
 */
export function intakeWriterThread(value: string | undefined): boolean {
  return value === '1';
}
