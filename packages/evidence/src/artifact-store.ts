import type { ByteRange } from '@wharf/common';

/**
 * Lifecycle state of a worker as recorded in its metadata.
 *
 * @example
 * ```ts
 * const status: WorkerStatus = 'failed';
 * ```
 */
export type WorkerStatus = 'running' | 'succeeded' | 'failed' | 'cancelled';

/**
 * What the artifact store knows about one worker. A worker belongs to exactly one owner and
 * one run; `workerId` is unique across the store, `jobId` is unique within a run.
 *
 * @example
 * ```ts
 * const worker: WorkerMetadata = {
 *   workerId: 'abc-123', jobId: '123', runId: '48', ownerId: 'team-a',
 *   status: 'succeeded', task: 'check disk space', startedAt: '2026-01-18T10:00:00.000Z',
 * };
 * ```
 */
export interface WorkerMetadata {
  workerId: string;
  jobId: string;
  runId: string;
  ownerId: string;
  status: WorkerStatus;
  /** What the worker was asked to do. */
  task?: string;
  /** ISO-8601 timestamps. */
  startedAt: string;
  endedAt?: string;
  durationMs?: number;
}

/**
 * Execution metadata of one tool call, given when its output is recorded.
 *
 * @example
 * ```ts
 * const call: ToolCallInput = {
 *   seq: 1, toolName: 'ssh_exec', exitCode: 0, durationMs: 234,
 *   startedAt: '2026-01-18T10:00:00.000Z', endedAt: '2026-01-18T10:00:00.234Z',
 * };
 * ```
 */
export interface ToolCallInput {
  /** 1-based position of the call in the worker's run; unique per worker. */
  seq: number;
  toolName: string;
  /** Process exit code, or `null` when the tool is not a process (or it never exited). */
  exitCode: number | null;
  durationMs: number;
  /** Bytes of the output that came from stderr (0 when none or unknown). */
  stderrBytes?: number;
  startedAt: string;
  endedAt: string;
}

/**
 * A recorded tool call: its execution metadata plus the stored output's size and id.
 *
 * @example
 * ```ts
 * const calls: ToolCallRecord[] = await store.listToolCalls('abc-123');
 * const failed = calls.filter((call) => call.exitCode !== null && call.exitCode !== 0);
 * ```
 */
export interface ToolCallRecord extends ToolCallInput {
  stderrBytes: number;
  /** Size of the raw output in bytes. */
  bytes: number;
  /** Stable id of the output, `<workerId>/tool_calls/<NNN>_<tool>.txt`. */
  artifactId: string;
}

/**
 * The raw output of a tool call: text, bytes, or a local file whose content is the output.
 * A file is taken only from the store's configured directories (see `FileSourcePolicy`):
 * from a spool directory it is handed over (the store moves it, or reads and deletes it);
 * from an allowed root it is copied and left as it was. Any other path, a symbolic link, a
 * `..` path, or a file with hard links other than the `hardLinks` named (each inside those
 * directories too) is refused with `PATH_NOT_ALLOWED`.
 *
 * @example
 * ```ts
 * await store.putToolCall('abc-123', call, 'Filesystem Size Used\n/dev/sda1 100G 45G\n');
 * await store.putToolCall('abc-123', next, { filePath: '/var/spool/wharf/capture-2.log' });
 * ```
 */
export type ToolOutputSource = string | Uint8Array | { filePath: string; hardLinks?: readonly string[] };

/**
 * A byte range of a stored artifact: `start` inclusive, `end` exclusive, both optional and
 * clamped to the artifact's size. The one shape `@wharf/common` defines for every Wharf package
 * (`@wharf/output-store` reads bodies with it too).
 */
export type { ByteRange };

/**
 * Where workers persist their evidence: metadata, final result text, thread, and every tool
 * call's raw output with its execution metadata. Scoped by owner and run through
 * {@link ArtifactStore.listWorkers}; each worker's own records are addressed by worker id.
 *
 * Every write is atomic: a reader sees the previous version or the new one, never a torn one.
 * Reading a byte range of an output reads that range only, never the whole artifact.
 *
 * @example
 * ```ts
 * await store.putWorker({ workerId: 'w1', jobId: '1', runId: 'r1', ownerId: 'o1',
 *   status: 'running', startedAt: new Date().toISOString() });
 * await store.putToolCall('w1', call, output);
 * const head = await store.readToolOutput('w1', 1, { start: 0, end: 1024 });
 * ```
 */
export interface ArtifactStore {
  /**
   * Declares a directory whose files belong to the caller and may be handed over as
   * `{ filePath }` outputs (optional: stores that take no files need not implement it). A
   * Wharf worker declares its work directory, where scripts' captured output is spilled.
   */
  addSpoolDirectory?(directory: string): void;
  /** Creates or updates a worker's metadata. Its owner, run and job can never change. */
  putWorker(metadata: WorkerMetadata): Promise<void>;
  /** The worker's metadata, or `undefined` when it does not exist (or was collected). */
  getWorker(workerId: string): Promise<WorkerMetadata | undefined>;
  /** Every worker of one owner's run, ordered by job id then worker id. */
  listWorkers(scope: { ownerId: string; runId: string }): Promise<WorkerMetadata[]>;
  /** Stores the worker's final message (may be empty). */
  putResult(workerId: string, text: string): Promise<void>;
  getResult(workerId: string): Promise<string | undefined>;
  /** Replaces the worker's conversation (one JSON value per line on disk). */
  putThread(workerId: string, entries: readonly unknown[]): Promise<void>;
  getThread(workerId: string): Promise<unknown[] | undefined>;
  /** Records one tool call and its raw output. A second call with the same `seq` replaces it. */
  putToolCall(workerId: string, call: ToolCallInput, output: ToolOutputSource): Promise<ToolCallRecord>;
  /** The worker's tool calls ordered by `seq` (empty when there are none). */
  listToolCalls(workerId: string): Promise<ToolCallRecord[]>;
  /** Bytes of a tool call's output, the whole output when `range` is omitted. */
  readToolOutput(workerId: string, seq: number, range?: ByteRange): Promise<Uint8Array>;
  /** Removes a worker and all its artifacts; true when something was removed. */
  deleteWorker(workerId: string): Promise<boolean>;
}
