import { randomUUID } from 'node:crypto';
import { RecentMap } from '@wharf/common';
import type { ContentRef, ListQuery, OutputRecord, OutputRef, OutputStore } from '@wharf/output-store';
import { IdempotencyConflictError, OutputNotFoundError } from '@wharf/output-store';
import { z } from 'zod';
import type {
  ArtifactStore,
  ByteRange,
  ToolCallInput,
  ToolCallRecord,
  ToolOutputSource,
  WorkerMetadata,
} from './artifact-store.js';
import { EvidenceError } from './evidence-error.js';
import { EVIDENCE_KIND_LABEL } from './evidence-record.js';
import {
  discardFileSource,
  type FileSource,
  type FileSourceOptions,
  FileSourcePolicy,
} from './file-source.js';
import { assertId, compareIds } from './ids.js';
import { checkRange, rangeWithin } from './range.js';
import { parseOrThrow, parseStoredJson, toolCallInputSchema, workerMetadataSchema } from './schemas.js';
import { parseThread, serializeThread } from './thread-jsonl.js';
import { toolCallRecord } from './tool-call-record.js';
import { checkWorkerIdentity, requireWorker } from './worker-identity.js';

const KIND = EVIDENCE_KIND_LABEL;
const WORKER = 'wharf.evidence.worker';
const SEQ = 'wharf.evidence.seq';
/** On a worker's metadata: its job, so the worker holding a job is found by one indexed label. */
const JOB = 'wharf.evidence.job';
/**
 * On a worker's metadata: its run, so the workers of one job of one run are found by labels
 * alone. A lookup that also names the run's columns lets a database planner walk the whole
 * run (a new run is one its statistics have not seen yet) instead of the label index.
 */
const RUN = 'wharf.evidence.run';
/** The spawn under which a run's job claims are keyed (one idempotency key per job). */
const CLAIMS_SPAWN = 'wharf-evidence-jobs';
/** Workers whose identity a store keeps at most (least recently used out). */
const KNOWN_WORKERS = 4096;
type Kind = 'metadata' | 'result' | 'thread' | 'tool-output' | 'job-claim';

const numberLabel = z
  .string()
  .regex(/^-?\d+(\.\d+)?$/)
  .transform(Number);
const toolLabelsSchema = z.object({
  [SEQ]: numberLabel,
  'wharf.evidence.tool': z.string().min(1),
  'wharf.evidence.exit': z.union([z.literal('null').transform(() => null), numberLabel]),
  'wharf.evidence.duration-ms': numberLabel,
  'wharf.evidence.stderr-bytes': numberLabel,
  'wharf.evidence.started-at': z.string(),
  'wharf.evidence.ended-at': z.string(),
});

/**
 * {@link ArtifactStore} on top of any `@wharf/output-store` {@link OutputStore}, so workers
 * and the supervisor can run on different machines and share evidence through the output
 * store. Each artifact is one output labelled with its kind, worker and (for tool outputs)
 * the call's execution metadata; a newer version replaces the older, which is then deleted.
 * Byte ranges are read with `openBody(ref, range)`, never the whole body.
 *
 * `{ filePath }` outputs follow {@link FileSourcePolicy}: taken only from `allowedRoots`
 * (copied, left as they are) or `spoolDirectories` (handed over: deleted once stored).
 *
 * @example
 * ```ts
 * import { InMemoryOutputStore } from '@wharf/output-store';
 * const store = new OutputStoreArtifactStore({ outputs: new InMemoryOutputStore() });
 * const compiler = new EvidenceCompiler({ store });
 * ```
 */
export class OutputStoreArtifactStore implements ArtifactStore {
  readonly outputs: OutputStore;
  #bytesRead = 0;
  readonly #files: FileSourcePolicy;
  /**
   * Workers this store stored or looked up, by id: the metadata that names their identity and
   * the output that holds it. A worker's owner, run and job never change (`putWorker` refuses
   * it), so while that output exists the worker does, with that identity: checking it is one
   * read by id instead of a label list and a body read.
   */
  readonly #known = new RecentMap<string, { worker: WorkerMetadata; outId: string }>(KNOWN_WORKERS);

  constructor(options: { outputs: OutputStore } & FileSourceOptions) {
    this.outputs = options.outputs;
    this.#files = new FileSourcePolicy(options);
  }

  /** Declares a directory whose files are handed over to this store (see {@link FileSourcePolicy}). */
  addSpoolDirectory(directory: string): void {
    this.#files.addSpoolDirectory(directory);
  }

  /** Body bytes streamed out of the output store by {@link OutputStoreArtifactStore.readToolOutput}. */
  get bytesRead(): number {
    return this.#bytesRead;
  }

  async #listAll(query: ListQuery): Promise<OutputRecord[]> {
    const records: OutputRecord[] = [];
    let cursor: string | undefined;
    do {
      const page = await this.outputs.list({ ...query, limit: 1000, ...(cursor ? { cursor } : {}) });
      for (const record of page.records) records.push(record);
      cursor = page.nextCursor;
    } while (cursor);
    return records;
  }

  async #latest(workerId: string, kind: Kind, seq?: number): Promise<OutputRecord | undefined> {
    assertId('workerId', workerId);
    const labels: Record<string, string> = { [KIND]: kind, [WORKER]: workerId };
    if (seq !== undefined) labels[SEQ] = String(seq);
    return (await this.#workerRecords(workerId, labels)).at(-1);
  }

  /**
   * A worker's records with `labels`, oldest first: only those the worker stored itself (its
   * artifacts' producer spawn is its id). Labels are anyone's to write, so an output another
   * spawn labelled with this worker's id never stands for its evidence.
   */
  async #workerRecords(workerId: string, labels: Record<string, string>): Promise<OutputRecord[]> {
    return (await this.#listAll({ labels })).filter((record) => record.producer.spawnId === workerId);
  }

  async #readText(record: Pick<OutputRecord, 'outId'>): Promise<string | undefined> {
    try {
      const { body } = await this.outputs.get({ outId: record.outId });
      return new TextDecoder().decode(body);
    } catch (error) {
      if (OutputNotFoundError.isInstance(error)) return undefined;
      throw error;
    }
  }

  async #emit(worker: WorkerMetadata, kind: Kind, content: ContentRef, labels: Record<string, string> = {}) {
    const allLabels = { [KIND]: kind, [WORKER]: worker.workerId, ...labels };
    const ref = await this.outputs.emit({
      producer: { ownerId: worker.ownerId, runId: worker.runId, spawnId: worker.workerId },
      content,
      idempotencyKey: `wharf-evidence/${worker.workerId}/${kind}/${labels[SEQ] ?? '-'}/${randomUUID()}`,
      contentType: kind === 'metadata' ? 'application/json' : 'text/plain; charset=utf-8',
      labels: allLabels,
    });
    const superseded = await this.#listAll({
      labels:
        kind === 'tool-output'
          ? { [KIND]: kind, [WORKER]: worker.workerId, [SEQ]: labels[SEQ] ?? '' }
          : { [KIND]: kind, [WORKER]: worker.workerId },
    });
    for (const record of superseded)
      if (record.outId !== ref.outId) await this.outputs.delete({ outId: record.outId });
    return ref;
  }

  /**
   * Stores a worker's metadata, labelled with its job: a new worker's check reads the workers of
   * its job only (one label lookup), not every worker of the run, so a wide swarm's cost per
   * worker does not grow with the workers before it.
   */
  async putWorker(metadata: WorkerMetadata): Promise<void> {
    let known = false;
    const parsed = await checkWorkerIdentity(metadata, {
      existing: async (workerId) => {
        const existing = await this.#identity(workerId);
        known = existing !== undefined;
        return existing;
      },
      siblings: (scope) => this.#jobWorkers(scope),
    });
    const ref = await this.#emit(
      parsed,
      'metadata',
      { kind: 'json', value: parsed },
      { [JOB]: parsed.jobId, [RUN]: parsed.runId },
    );
    this.#known.set(parsed.workerId, { worker: parsed, outId: ref.outId });
    if (known) return;
    // The metadata first, then the claim: a claim always names a stored worker, and a new worker
    // that lost its job to another storing itself at the same moment is removed again.
    try {
      await this.#claimJob(parsed);
    } catch (error) {
      await this.deleteWorker(parsed.workerId);
      throw error;
    }
  }

  /**
   * Claims a new worker's job: an output under the run's claims spawn keyed by the job, whose
   * body is the worker's id. The store's idempotency key is unique in its scope, so of two
   * workers claiming one job at once the second gets `IDEMPOTENCY_CONFLICT`, here
   * `OWNERSHIP_CONFLICT`. A claim whose worker is no longer stored is taken over.
   */
  async #claimJob(worker: WorkerMetadata, takeOver = true): Promise<void> {
    try {
      await this.outputs.emit({
        producer: { ownerId: worker.ownerId, runId: worker.runId, spawnId: CLAIMS_SPAWN },
        content: { kind: 'text', text: worker.workerId },
        idempotencyKey: `job/${worker.jobId}`,
        contentType: 'text/plain; charset=utf-8',
        labels: { [KIND]: 'job-claim', [WORKER]: worker.workerId, [JOB]: worker.jobId },
      });
    } catch (error) {
      if (!IdempotencyConflictError.isInstance(error)) throw error;
      const holder = await this.#readText({ outId: error.existingOutId });
      if (takeOver && (holder === undefined || (await this.getWorker(holder)) === undefined)) {
        await this.outputs.delete({ outId: error.existingOutId });
        return this.#claimJob(worker, false);
      }
      throw new EvidenceError(
        'OWNERSHIP_CONFLICT',
        `job ${worker.jobId} of run ${worker.runId} already belongs to worker ${holder ?? 'another worker'}`,
        { cause: error },
      );
    }
  }

  /**
   * The stored workers of one job of a run, by the job and run labels their metadata carries:
   * one label lookup whatever the run or the store holds. (Metadata stored before the run label
   * existed is not found here; the job's claim still refuses a second worker.)
   */
  async #jobWorkers(scope: { ownerId: string; runId: string; jobId: string }): Promise<WorkerMetadata[]> {
    const workers = await this.#workersIn(scope, {
      labels: { [KIND]: 'metadata', [JOB]: scope.jobId, [RUN]: scope.runId },
    });
    return workers.filter((worker) => worker.jobId === scope.jobId);
  }

  async getWorker(workerId: string): Promise<WorkerMetadata | undefined> {
    return (await this.#storedWorker(workerId))?.worker;
  }

  /** A worker's latest stored metadata and the output holding it. */
  async #storedWorker(workerId: string): Promise<{ worker: WorkerMetadata; outId: string } | undefined> {
    const record = await this.#latest(workerId, 'metadata');
    const text = record && (await this.#readText(record));
    if (record === undefined || text === undefined) return undefined;
    const worker = parseStoredJson(workerMetadataSchema, text, `${workerId}/metadata.json`) as WorkerMetadata;
    return { worker, outId: record.outId };
  }

  /**
   * A stored worker's identity (its metadata as this store last saw it: owner, run and job are
   * what count, never its status), or undefined when it is not stored. Known to this store, it
   * is checked by reading the output that held it; when that is gone (the worker deleted, or
   * its metadata replaced elsewhere), and for a worker this store has not seen, looked up.
   */
  async #identity(workerId: string): Promise<WorkerMetadata | undefined> {
    const known = this.#known.get(workerId);
    if (known !== undefined) {
      const still = await this.outputs.stat({ outId: known.outId }).then(
        () => true,
        (error: unknown) => {
          if (OutputNotFoundError.isInstance(error)) return false;
          throw error;
        },
      );
      if (still) return known.worker;
      this.#known.delete(workerId);
    }
    const stored = await this.#storedWorker(workerId);
    if (stored !== undefined) this.#known.set(workerId, stored);
    return stored?.worker;
  }

  /** The worker a tool call, result or thread is stored for; `ARTIFACT_NOT_FOUND` when it is not stored. */
  #requireWorker(workerId: string): Promise<WorkerMetadata> {
    return requireWorker({ getWorker: (id) => this.#identity(id) }, workerId);
  }

  async listWorkers(scope: { ownerId: string; runId: string }): Promise<WorkerMetadata[]> {
    assertId('ownerId', scope.ownerId);
    assertId('runId', scope.runId);
    const workers = await this.#workersIn(scope, {
      ownerId: scope.ownerId,
      runId: scope.runId,
      labels: { [KIND]: 'metadata' },
    });
    return workers.sort(
      (left, right) => compareIds(left.jobId, right.jobId) || compareIds(left.workerId, right.workerId),
    );
  }

  /** Each worker's latest stored metadata among the metadata records `query` lists, of `scope`'s run only. */
  async #workersIn(scope: { ownerId: string; runId: string }, query: ListQuery): Promise<WorkerMetadata[]> {
    const latest = new Map<string, OutputRecord>();
    for (const record of await this.#listAll(query)) {
      // Labels are anyone's to write: only what the run's own producers stored counts (the store
      // records the producer of each output), so another run's outputs labelled like this run's
      // workers never stand for them.
      const { ownerId, runId } = record.producer;
      if (ownerId !== scope.ownerId || runId !== scope.runId) continue;
      if (record.labels[KIND] === 'metadata') latest.set(record.labels[WORKER] ?? '', record);
    }
    const workers: WorkerMetadata[] = [];
    for (const [workerId, record] of latest) {
      const text = await this.#readText(record);
      if (text === undefined) continue;
      const worker = parseStoredJson(
        workerMetadataSchema,
        text,
        `${workerId}/metadata.json`,
      ) as WorkerMetadata;
      if (worker.ownerId === scope.ownerId && worker.runId === scope.runId) workers.push(worker);
    }
    return workers;
  }

  async putResult(workerId: string, text: string): Promise<void> {
    const worker = await this.#requireWorker(workerId);
    if (typeof text !== 'string') throw new EvidenceError('INVALID_ARTIFACT', 'result must be a string');
    await this.#emit(worker, 'result', { kind: 'text', text });
  }

  async getResult(workerId: string): Promise<string | undefined> {
    const record = await this.#latest(workerId, 'result');
    return record && this.#readText(record);
  }

  async putThread(workerId: string, entries: readonly unknown[]): Promise<void> {
    const worker = await this.#requireWorker(workerId);
    await this.#emit(worker, 'thread', { kind: 'text', text: serializeThread(entries) });
  }

  async getThread(workerId: string): Promise<unknown[] | undefined> {
    const record = await this.#latest(workerId, 'thread');
    const text = record && (await this.#readText(record));
    return text === undefined ? undefined : parseThread(text, `${workerId}/thread.jsonl`);
  }

  async putToolCall(
    workerId: string,
    call: ToolCallInput,
    output: ToolOutputSource,
  ): Promise<ToolCallRecord> {
    const input = parseOrThrow(toolCallInputSchema, call, { code: 'INVALID_ARTIFACT', what: 'tool call' });
    const worker = await this.#requireWorker(workerId);
    let content: ContentRef;
    let source: FileSource | undefined;
    if (typeof output === 'string') content = { kind: 'text', text: output };
    else if (output instanceof Uint8Array) content = { kind: 'bytes', bytes: output };
    else if (output && typeof output.filePath === 'string') {
      source = await this.#files.open(output.filePath, output.hardLinks);
      content = { kind: 'stream', stream: source.handle.createReadStream({ start: 0, autoClose: false }) };
    } else throw new EvidenceError('INVALID_ARTIFACT', 'output must be a string, bytes or { filePath }');
    let ref: OutputRef;
    try {
      ref = await this.#emit(worker, 'tool-output', content, {
        [SEQ]: String(input.seq),
        'wharf.evidence.tool': input.toolName,
        'wharf.evidence.exit': String(input.exitCode),
        'wharf.evidence.duration-ms': String(input.durationMs),
        'wharf.evidence.stderr-bytes': String(input.stderrBytes ?? 0),
        'wharf.evidence.started-at': input.startedAt,
        'wharf.evidence.ended-at': input.endedAt,
      });
    } finally {
      await source?.handle.close();
    }
    if (source) await discardFileSource(source);
    return this.#toRecord(workerId, await this.outputs.stat(ref));
  }

  #toRecord(workerId: string, record: OutputRecord): ToolCallRecord {
    const labels = parseOrThrow(toolLabelsSchema, record.labels, {
      code: 'CORRUPT_ARTIFACT',
      what: `labels of output ${record.outId}`,
    });
    const call = {
      seq: labels[SEQ],
      toolName: labels['wharf.evidence.tool'],
      exitCode: labels['wharf.evidence.exit'],
      durationMs: labels['wharf.evidence.duration-ms'],
      stderrBytes: labels['wharf.evidence.stderr-bytes'],
      startedAt: labels['wharf.evidence.started-at'],
      endedAt: labels['wharf.evidence.ended-at'],
    };
    return toolCallRecord(workerId, call, record.sizeBytes);
  }

  async listToolCalls(workerId: string): Promise<ToolCallRecord[]> {
    assertId('workerId', workerId);
    const records = await this.#workerRecords(workerId, { [KIND]: 'tool-output', [WORKER]: workerId });
    const bySeq = new Map<number, ToolCallRecord>();
    for (const record of records) {
      const call = this.#toRecord(workerId, record);
      bySeq.set(call.seq, call);
    }
    return [...bySeq.values()].sort((left, right) => left.seq - right.seq);
  }

  async readToolOutput(workerId: string, seq: number, range?: ByteRange): Promise<Uint8Array> {
    if (range) checkRange(range);
    const record = await this.#latest(workerId, 'tool-output', seq);
    const missing = () =>
      new EvidenceError('ARTIFACT_NOT_FOUND', `tool call ${seq} of worker ${workerId} does not exist`);
    if (!record) throw missing();
    const { start, end } = rangeWithin(range, record.sizeBytes);
    if (end <= start) return new Uint8Array();
    try {
      const opened = await this.outputs.openBody({ outId: record.outId }, { start, end });
      const buffer = new Uint8Array(end - start);
      let filled = 0;
      for await (const chunk of opened.stream as AsyncIterable<Uint8Array>) {
        const take = Math.min(chunk.length, buffer.length - filled);
        buffer.set(chunk.subarray(0, take), filled);
        filled += take;
        this.#bytesRead += chunk.length;
      }
      return filled === buffer.length ? buffer : buffer.subarray(0, filled);
    } catch (error) {
      if (OutputNotFoundError.isInstance(error)) throw missing();
      throw error;
    }
  }

  async deleteWorker(workerId: string): Promise<boolean> {
    assertId('workerId', workerId);
    this.#known.delete(workerId);
    const records = await this.#listAll({ labels: { [WORKER]: workerId } });
    let removed = false;
    for (const record of records) removed = (await this.outputs.delete({ outId: record.outId })) || removed;
    return removed;
  }
}
