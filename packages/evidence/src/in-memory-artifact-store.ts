import { encodeUtf8 } from '@wharf/common';
import type {
  ArtifactStore,
  ByteRange,
  ToolCallInput,
  ToolCallRecord,
  ToolOutputSource,
  WorkerMetadata,
} from './artifact-store.js';
import { EvidenceError } from './evidence-error.js';
import { discardFileSource, type FileSourceOptions, FileSourcePolicy } from './file-source.js';
import { assertId, compareIds } from './ids.js';
import { checkRange, rangeWithin } from './range.js';
import { parseOrThrow, toolCallInputSchema } from './schemas.js';
import { parseThread, serializeThread } from './thread-jsonl.js';
import { toolCallRecord } from './tool-call-record.js';
import { checkWorkerIdentity } from './worker-identity.js';

interface WorkerEntry {
  metadata: WorkerMetadata;
  result?: string;
  thread?: string;
  calls: Map<number, { record: ToolCallRecord; output: Uint8Array }>;
}

/**
 * {@link ArtifactStore} in process memory: for tests, and for a supervisor and its workers
 * that share one process. Values are copied in and out, so callers cannot change what is
 * stored. {@link InMemoryArtifactStore.bytesRead} counts output bytes handed out.
 * `{ filePath }` outputs follow {@link FileSourcePolicy}: read from `allowedRoots` (left as
 * they are) or `spoolDirectories` (handed over: deleted once read); any other path is refused.
 *
 * @example
 * ```ts
 * const store = new InMemoryArtifactStore();
 * const compiler = new EvidenceCompiler({ store });
 * ```
 */
export class InMemoryArtifactStore implements ArtifactStore {
  readonly #workers = new Map<string, WorkerEntry>();
  /** Worker ids by owner, run and job: a new worker's job clash is one lookup, not a scan. */
  readonly #byJob = new Map<string, Set<string>>();
  #bytesRead = 0;
  readonly #files: FileSourcePolicy;

  constructor(options: FileSourceOptions = {}) {
    this.#files = new FileSourcePolicy(options);
  }

  /** Declares a directory whose files are handed over to this store (see {@link FileSourcePolicy}). */
  addSpoolDirectory(directory: string): void {
    this.#files.addSpoolDirectory(directory);
  }

  /** Output bytes returned by {@link InMemoryArtifactStore.readToolOutput} so far. */
  get bytesRead(): number {
    return this.#bytesRead;
  }

  #entry(workerId: string): WorkerEntry | undefined {
    assertId('workerId', workerId);
    return this.#workers.get(workerId);
  }

  #require(workerId: string): WorkerEntry {
    const entry = this.#entry(workerId);
    if (!entry) throw new EvidenceError('ARTIFACT_NOT_FOUND', `worker ${workerId} does not exist`);
    return entry;
  }

  async putWorker(metadata: WorkerMetadata): Promise<void> {
    const parsed = await checkWorkerIdentity(metadata, {
      existing: async (workerId) => this.#workers.get(workerId)?.metadata,
      // The same job's workers are the only siblings the check compares.
      siblings: async (scope) =>
        [...(this.#byJob.get(jobKey(scope)) ?? [])].flatMap((workerId) => {
          const other = this.#workers.get(workerId)?.metadata;
          return other === undefined ? [] : [other];
        }),
    });
    const existing = this.#workers.get(parsed.workerId);
    if (existing) {
      existing.metadata = structuredClone(parsed);
      return;
    }
    const key = jobKey(parsed);
    const workers = this.#byJob.get(key) ?? new Set<string>();
    // Another new worker of this job may have been stored while the check awaited: one holds it.
    const holder = [...workers].find((workerId) => this.#workers.has(workerId));
    if (holder !== undefined)
      throw new EvidenceError(
        'OWNERSHIP_CONFLICT',
        `job ${parsed.jobId} of run ${parsed.runId} already belongs to worker ${holder}`,
      );
    this.#workers.set(parsed.workerId, { metadata: structuredClone(parsed), calls: new Map() });
    workers.add(parsed.workerId);
    this.#byJob.set(key, workers);
  }

  async getWorker(workerId: string): Promise<WorkerMetadata | undefined> {
    const entry = this.#entry(workerId);
    return entry ? structuredClone(entry.metadata) : undefined;
  }

  async listWorkers(scope: { ownerId: string; runId: string }): Promise<WorkerMetadata[]> {
    assertId('ownerId', scope.ownerId);
    assertId('runId', scope.runId);
    return [...this.#workers.values()]
      .map((entry) => entry.metadata)
      .filter((metadata) => metadata.ownerId === scope.ownerId && metadata.runId === scope.runId)
      .sort((left, right) => compareIds(left.jobId, right.jobId) || compareIds(left.workerId, right.workerId))
      .map((metadata) => structuredClone(metadata));
  }

  async putResult(workerId: string, text: string): Promise<void> {
    const entry = this.#require(workerId);
    if (typeof text !== 'string') throw new EvidenceError('INVALID_ARTIFACT', 'result must be a string');
    entry.result = text;
  }

  async getResult(workerId: string): Promise<string | undefined> {
    return this.#entry(workerId)?.result;
  }

  async putThread(workerId: string, entries: readonly unknown[]): Promise<void> {
    const entry = this.#require(workerId);
    entry.thread = serializeThread(entries);
  }

  async getThread(workerId: string): Promise<unknown[] | undefined> {
    const thread = this.#entry(workerId)?.thread;
    return thread === undefined ? undefined : parseThread(thread, `${workerId}/thread.jsonl`);
  }

  async putToolCall(
    workerId: string,
    call: ToolCallInput,
    output: ToolOutputSource,
  ): Promise<ToolCallRecord> {
    const input = parseOrThrow(toolCallInputSchema, call, { code: 'INVALID_ARTIFACT', what: 'tool call' });
    const entry = this.#require(workerId);
    let bytes: Uint8Array;
    if (typeof output === 'string') bytes = encodeUtf8(output);
    else if (output instanceof Uint8Array) bytes = output.slice();
    else if (output && typeof output.filePath === 'string') {
      const source = await this.#files.open(output.filePath, output.hardLinks);
      try {
        bytes = new Uint8Array(await source.handle.readFile());
      } finally {
        await source.handle.close();
      }
      await discardFileSource(source);
    } else throw new EvidenceError('INVALID_ARTIFACT', 'output must be a string, bytes or { filePath }');
    const record = toolCallRecord(workerId, input, bytes.length);
    entry.calls.set(input.seq, { record, output: bytes });
    return { ...record };
  }

  async listToolCalls(workerId: string): Promise<ToolCallRecord[]> {
    const entry = this.#entry(workerId);
    if (!entry) return [];
    return [...entry.calls.values()]
      .map((call) => ({ ...call.record }))
      .sort((left, right) => left.seq - right.seq);
  }

  async readToolOutput(workerId: string, seq: number, range?: ByteRange): Promise<Uint8Array> {
    if (range) checkRange(range);
    const call = this.#entry(workerId)?.calls.get(seq);
    if (!call)
      throw new EvidenceError('ARTIFACT_NOT_FOUND', `tool call ${seq} of worker ${workerId} does not exist`);
    const { start, end } = rangeWithin(range, call.output.length);
    this.#bytesRead += end - start;
    return call.output.slice(start, end);
  }

  async deleteWorker(workerId: string): Promise<boolean> {
    const entry = this.#entry(workerId);
    if (entry !== undefined) {
      const key = jobKey(entry.metadata);
      this.#byJob.get(key)?.delete(workerId);
      if (this.#byJob.get(key)?.size === 0) this.#byJob.delete(key);
    }
    return this.#workers.delete(workerId);
  }
}

/** The index key of a worker's owner, run and job. */
function jobKey(worker: { ownerId: string; runId: string; jobId: string }): string {
  return JSON.stringify([worker.ownerId, worker.runId, worker.jobId]);
}
