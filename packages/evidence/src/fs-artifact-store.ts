import { constants } from 'node:fs';
import { open, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type {
  ArtifactStore,
  ByteRange,
  ToolCallInput,
  ToolCallRecord,
  ToolOutputSource,
  WorkerMetadata,
} from './artifact-store.js';
import { copyFileAtomic, inFolderOf, moveFileAtomic, writeFileAtomic } from './atomic-write.js';
import { EvidenceError } from './evidence-error.js';
import { type FileSourceOptions, FileSourcePolicy } from './file-source.js';
import { assertId, compareIds, toolOutputFileName } from './ids.js';
import { mapConcurrent } from './map-concurrent.js';
import { tightenPrivateDirectory } from './private-mode.js';
import { checkRange, rangeWithin } from './range.js';
import {
  parseOrThrow,
  parseStoredJson,
  toolCallInputSchema,
  toolCallRecordSchema,
  workerMetadataSchema,
} from './schemas.js';
import { parseThread, serializeThread } from './thread-jsonl.js';
import { toolCallRecord } from './tool-call-record.js';
import { checkWorkerIdentity, requireWorker } from './worker-identity.js';

const RECORD_FILE = /^(\d{3,})_.+\.json$/;
/** Stored files are read by their own name only: a symbolic link planted in the store is refused. */
const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW;
/** Small metadata files read at once. */
const READ_CONCURRENCY = 16;

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/** A stored file that is a symbolic link was not written by the store: refuse to follow it. */
function linkRefused(error: unknown, path: string): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  if (code !== 'ELOOP' && code !== 'EMLINK') return error;
  return new EvidenceError('CORRUPT_ARTIFACT', `${path} is a symbolic link; the store does not follow it`, {
    cause: error,
  });
}

async function readOptional(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, { encoding: 'utf8', flag: READ_FLAGS });
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw linkRefused(error, path);
  }
}

async function listOptional(path: string): Promise<string[]> {
  try {
    return await readdir(path);
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
}

/** Creates an index entry, or leaves it; never through a symbolic link. */
const INDEX_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | constants.O_NOFOLLOW;

/**
 * Makes sure an index entry (an empty file: only its name is read) exists, without changing
 * one that does. An empty file has no content to tear, so it is neither written to a temporary
 * name nor fsynced, where rewriting it atomically cost five calls and an fsync on every
 * `putWorker`. A symbolic link planted in its place is replaced by the file, as before.
 */
async function writeIndexEntry(path: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await inFolderOf(path, () => open(path, INDEX_FLAGS, 0o600));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException | undefined)?.code;
    if (code !== 'ELOOP' && code !== 'EMLINK') throw error;
    await writeFileAtomic(path, '');
    return;
  }
  await handle.close();
}

/**
 * {@link ArtifactStore} on the local file system, one directory per worker:
 *
 * ```
 * <root>/workers/<workerId>/metadata.json
 *                          /result.txt
 *                          /thread.jsonl
 *                          /tool_calls/001_ssh_exec.txt   raw output
 *                          /tool_calls/001_ssh_exec.json  execution metadata
 * <root>/runs/<ownerId>/<runId>/<workerId>                run index entry
 * <root>/jobs/<ownerId>/<runId>/<jobId>                   the job's worker id (its claim)
 * ```
 *
 * Every file is written to a temporary name and renamed into place (a job's claim is created
 * exclusively; a run's index entries, empty files read by name only, are created in place). Byte-range reads use
 * positioned reads on an open handle; {@link FsArtifactStore.bytesRead} counts the output
 * bytes actually read from disk. Stored files are opened with `O_NOFOLLOW`.
 *
 * A `{ filePath }` output is taken only from `allowedRoots` or `spoolDirectories` (see
 * {@link FileSourcePolicy}; with neither, every path is refused with `PATH_NOT_ALLOWED`).
 * A file in a spool directory is handed over: it is moved into place. A file under an
 * allowed root is copied and left exactly as it was: the store never moves or deletes what
 * it does not own.
 *
 * @example
 * ```ts
 * const store = new FsArtifactStore({ root: '/data/wharf-evidence', spoolDirectories: ['/data/wharf-work'] });
 * await store.putWorker({ workerId: 'abc-123', jobId: '123', runId: '48', ownerId: 'o1',
 *   status: 'running', startedAt: new Date().toISOString() });
 * ```
 */
export class FsArtifactStore implements ArtifactStore {
  readonly root: string;
  #bytesRead = 0;
  /** Output file name per `<workerId>/<seq>`, learnt from listings; verified by opening. */
  readonly #fileNames = new Map<string, string>();
  readonly #files: FileSourcePolicy;

  constructor(options: { root: string } & FileSourceOptions) {
    this.root = options.root;
    this.#files = new FileSourcePolicy(options);
    // Folders are created 0700 as they are needed; one made before under a looser umask is
    // tightened here.
    tightenPrivateDirectory(this.root);
  }

  /** Declares a directory whose files are handed over to this store (see {@link FileSourcePolicy}). */
  addSpoolDirectory(directory: string): void {
    this.#files.addSpoolDirectory(directory);
  }

  /** Output bytes read from disk by {@link FsArtifactStore.readToolOutput} so far. */
  get bytesRead(): number {
    return this.#bytesRead;
  }

  #workerDirectory(workerId: string): string {
    assertId('workerId', workerId);
    return join(this.root, 'workers', workerId);
  }

  #runDirectory(ownerId: string, runId: string): string {
    assertId('ownerId', ownerId);
    assertId('runId', runId);
    return join(this.root, 'runs', ownerId, runId);
  }

  /** `jobs/<owner>/<run>/<job>`: the id of the worker that holds the job (see {@link putWorker}). */
  #jobClaim(scope: { ownerId: string; runId: string; jobId: string }): string {
    assertId('ownerId', scope.ownerId);
    assertId('runId', scope.runId);
    assertId('jobId', scope.jobId);
    return join(this.root, 'jobs', scope.ownerId, scope.runId, scope.jobId);
  }

  /** The worker holding a job of a run, when its claim names one that is stored. */
  async #jobHolder(scope: { ownerId: string; runId: string; jobId: string }): Promise<WorkerMetadata[]> {
    const holder = (await readOptional(this.#jobClaim(scope)))?.trim();
    if (holder === undefined || holder === '') return [];
    const worker = await this.getWorker(holder).catch(() => undefined);
    return worker === undefined ? [] : [worker];
  }

  /**
   * Claims a worker's job with a file created exclusively, so two workers storing themselves for
   * one job at once cannot both have it; the holder claiming again is a no-op. A claim naming a
   * worker that is not stored (deleted, or its store cleared) is taken over.
   */
  async #claimJob(worker: WorkerMetadata): Promise<void> {
    const path = this.#jobClaim(worker);
    try {
      await inFolderOf(path, () => writeFile(path, worker.workerId, { flag: 'wx', flush: true }));
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    let [holder] = await this.#jobHolder(worker);
    if (holder === undefined) {
      await writeFileAtomic(path, worker.workerId);
      // Two workers taking over one stale claim: the last rename won.
      [holder] = await this.#jobHolder(worker);
    }
    if (holder !== undefined && holder.workerId !== worker.workerId)
      throw new EvidenceError(
        'OWNERSHIP_CONFLICT',
        `job ${worker.jobId} of run ${worker.runId} already belongs to worker ${holder.workerId}`,
      );
  }

  /**
   * Stores a worker's metadata, and claims its job (`jobs/<owner>/<run>/<job>`):
   * checking the one claim costs the same in a run of ten workers or of a hundred thousand,
   * where reading every sibling's metadata made a wide swarm's cost per worker grow with the
   * workers before it.
   */
  async putWorker(metadata: WorkerMetadata): Promise<void> {
    let known = false;
    const parsed = await checkWorkerIdentity(metadata, {
      existing: async (workerId) => {
        const existing = await this.getWorker(workerId);
        known = existing !== undefined;
        return existing;
      },
      siblings: (scope) => this.#jobHolder(scope),
    });
    // The metadata first, then a new worker's claim: a claim always names a stored worker (one
    // that is not stored is a stale claim, taken over), and a worker that lost the job is
    // removed. A stored worker's update keeps its job (checked above) and claims nothing.
    const directory = this.#workerDirectory(parsed.workerId);
    await writeFileAtomic(join(directory, 'metadata.json'), `${JSON.stringify(parsed, null, 2)}\n`);
    if (!known)
      try {
        await this.#claimJob(parsed);
      } catch (error) {
        await rm(directory, { recursive: true, force: true });
        throw error;
      }
    await writeIndexEntry(join(this.#runDirectory(parsed.ownerId, parsed.runId), parsed.workerId));
  }

  async getWorker(workerId: string): Promise<WorkerMetadata | undefined> {
    const text = await readOptional(join(this.#workerDirectory(workerId), 'metadata.json'));
    if (text === undefined) return undefined;
    return parseStoredJson(workerMetadataSchema, text, `${workerId}/metadata.json`) as WorkerMetadata;
  }

  async listWorkers(scope: { ownerId: string; runId: string }): Promise<WorkerMetadata[]> {
    const entries = await listOptional(this.#runDirectory(scope.ownerId, scope.runId));
    const found = await mapConcurrent(
      entries.filter((entry) => !entry.endsWith('.tmp')),
      READ_CONCURRENCY,
      (entry) => this.getWorker(entry),
    );
    const workers = found.filter(
      (worker): worker is WorkerMetadata =>
        worker !== undefined && worker.ownerId === scope.ownerId && worker.runId === scope.runId,
    );
    return workers.sort(
      (left, right) => compareIds(left.jobId, right.jobId) || compareIds(left.workerId, right.workerId),
    );
  }

  async putResult(workerId: string, text: string): Promise<void> {
    await requireWorker(this, workerId);
    if (typeof text !== 'string') throw new EvidenceError('INVALID_ARTIFACT', 'result must be a string');
    await writeFileAtomic(join(this.#workerDirectory(workerId), 'result.txt'), text);
  }

  async getResult(workerId: string): Promise<string | undefined> {
    return readOptional(join(this.#workerDirectory(workerId), 'result.txt'));
  }

  async putThread(workerId: string, entries: readonly unknown[]): Promise<void> {
    await requireWorker(this, workerId);
    await writeFileAtomic(join(this.#workerDirectory(workerId), 'thread.jsonl'), serializeThread(entries));
  }

  async getThread(workerId: string): Promise<unknown[] | undefined> {
    const text = await readOptional(join(this.#workerDirectory(workerId), 'thread.jsonl'));
    if (text === undefined) return undefined;
    return parseThread(text, `${workerId}/thread.jsonl`);
  }

  async putToolCall(
    workerId: string,
    call: ToolCallInput,
    output: ToolOutputSource,
  ): Promise<ToolCallRecord> {
    const input = parseOrThrow(toolCallInputSchema, call, { code: 'INVALID_ARTIFACT', what: 'tool call' });
    await requireWorker(this, workerId);
    const toolDirectory = join(this.#workerDirectory(workerId), 'tool_calls');
    const fileName = toolOutputFileName(input.seq, input.toolName);
    const outputPath = join(toolDirectory, fileName);
    if (typeof output === 'string' || output instanceof Uint8Array) await writeFileAtomic(outputPath, output);
    else if (output && typeof output.filePath === 'string') {
      const source = await this.#files.open(output.filePath, output.hardLinks);
      try {
        if (!source.owned) await copyFileAtomic(source.handle, outputPath);
        else if (!(await moveFileAtomic(source, outputPath))) {
          throw new EvidenceError(
            'PATH_NOT_ALLOWED',
            `output.filePath ${output.filePath} changed while it was moved`,
          );
        }
      } finally {
        await source.handle.close();
      }
    } else throw new EvidenceError('INVALID_ARTIFACT', 'output must be a string, bytes or { filePath }');
    const bytes = (await stat(outputPath)).size;
    const record = toolCallRecord(workerId, input, bytes);
    const recordName = fileName.replace(/\.txt$/, '.json');
    this.#fileNames.set(`${workerId}/${input.seq}`, fileName);
    await writeFileAtomic(join(toolDirectory, recordName), `${JSON.stringify(record)}\n`);
    const prefix = `${String(input.seq).padStart(3, '0')}_`;
    for (const entry of await listOptional(toolDirectory)) {
      if (entry.startsWith(prefix) && entry !== fileName && entry !== recordName && !entry.endsWith('.tmp')) {
        await rm(join(toolDirectory, entry), { force: true });
      }
    }
    return record;
  }

  async listToolCalls(workerId: string): Promise<ToolCallRecord[]> {
    const toolDirectory = join(this.#workerDirectory(workerId), 'tool_calls');
    const entries = (await listOptional(toolDirectory)).filter((entry) => RECORD_FILE.test(entry));
    const found = await mapConcurrent(entries, READ_CONCURRENCY, async (entry) => {
      const text = await readOptional(join(toolDirectory, entry));
      if (text === undefined) return undefined;
      const record = parseStoredJson(
        toolCallRecordSchema,
        text,
        `${workerId}/tool_calls/${entry}`,
      ) as ToolCallRecord;
      this.#fileNames.set(`${workerId}/${record.seq}`, entry.replace(/\.json$/, '.txt'));
      return record;
    });
    const records = found.filter((record): record is ToolCallRecord => record !== undefined);
    return records.sort((left, right) => left.seq - right.seq);
  }

  async readToolOutput(workerId: string, seq: number, range?: ByteRange): Promise<Uint8Array> {
    if (range) checkRange(range);
    const handle = await this.#openOutput(workerId, seq);
    try {
      const { start: offset, end } = rangeWithin(range, (await handle.stat()).size);
      const length = end - offset;
      const buffer = new Uint8Array(length);
      let filled = 0;
      while (filled < length) {
        const { bytesRead } = await handle.read(buffer, filled, length - filled, offset + filled);
        if (bytesRead === 0) break;
        filled += bytesRead;
      }
      this.#bytesRead += filled;
      return filled === length ? buffer : buffer.subarray(0, filled);
    } finally {
      await handle.close();
    }
  }

  async #openOutput(workerId: string, seq: number): Promise<Awaited<ReturnType<typeof open>>> {
    const toolDirectory = join(this.#workerDirectory(workerId), 'tool_calls');
    const key = `${workerId}/${seq}`;
    const missing = (cause?: unknown) =>
      new EvidenceError('ARTIFACT_NOT_FOUND', `tool call ${seq} of worker ${workerId} does not exist`, {
        cause,
      });
    const cached = this.#fileNames.get(key);
    if (cached) {
      try {
        return await open(join(toolDirectory, cached), READ_FLAGS);
      } catch (error) {
        if (!isMissing(error)) throw linkRefused(error, join(toolDirectory, cached));
        this.#fileNames.delete(key);
      }
    }
    const prefix = `${String(seq).padStart(3, '0')}_`;
    const name = (await listOptional(toolDirectory)).find(
      (entry) => entry.startsWith(prefix) && entry.endsWith('.txt'),
    );
    if (!name) throw missing();
    try {
      const handle = await open(join(toolDirectory, name), READ_FLAGS);
      this.#fileNames.set(key, name);
      return handle;
    } catch (error) {
      if (isMissing(error)) throw missing(error);
      throw linkRefused(error, join(toolDirectory, name));
    }
  }

  async deleteWorker(workerId: string): Promise<boolean> {
    const worker = await this.getWorker(workerId).catch(() => undefined);
    const directory = this.#workerDirectory(workerId);
    const existed = await stat(directory).then(
      () => true,
      () => false,
    );
    if (worker) {
      await rm(join(this.#runDirectory(worker.ownerId, worker.runId), workerId), { force: true });
      const [holder] = await this.#jobHolder(worker);
      if (holder?.workerId === workerId) await rm(this.#jobClaim(worker), { force: true });
    }
    await rm(directory, { recursive: true, force: true });
    return existed;
  }
}
