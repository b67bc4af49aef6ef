import { Worker } from 'node:worker_threads';
import { StorageFailureError } from '../errors.js';
import type {
  RowWriterInit,
  RowWriterItem,
  RowWriterOutcome,
  RowWriterRequest,
  RowWriterResponse,
} from './row-writer-protocol.js';

/** A batch's answer: each item's outcome and the body files of expired rows it replaced. */
export interface RowWriterResult {
  readonly outcomes: readonly RowWriterOutcome[];
  readonly doomed: readonly string[];
}

interface InFlight {
  readonly resolve: (result: RowWriterResult) => void;
  readonly reject: (error: unknown) => void;
}

// From the built files the thread is `row-writer-thread.js`; from the sources (tests) Node
// strips the types of `row-writer-thread.ts` itself.
const threadUrl = new URL(
  import.meta.url.endsWith('.ts') ? './row-writer-thread.ts' : './row-writer-thread.js',
  import.meta.url,
);

/**
 * The SQLite store's writer thread, seen from the main thread: `write` sends a batch of new
 * inline outputs to a worker thread that owns its own connection to the database and commits
 * the batch in one transaction there, off the event loop (the commit's WAL writes, and the WAL
 * checkpoints that follow some commits, are then not the event loop's to wait for). A batch's
 * promise resolves only once its transaction committed. If the thread dies, every batch in
 * flight rejects with a `StorageFailureError` (its rows may or may not have committed: a retry
 * with the same idempotency keys answers the same outputs) and the next `write` starts a new
 * thread.
 *
 * @example
 * ```ts
 * const writer = new RowWriter({ path, busyTimeoutMs: 10_000, synchronous: 'NORMAL', sql });
 * const { outcomes } = await writer.write(Date.now(), [{ parameters, labels: [] }], new ArrayBuffer(0));
 * await writer.close();
 * ```
 */
export class RowWriter {
  readonly #init: RowWriterInit;
  readonly #inFlight = new Map<number, InFlight>();
  #worker: Worker | undefined;
  #nextId = 1;
  #closed = false;

  constructor(init: RowWriterInit) {
    this.#init = init;
  }

  /** The thread's id while one runs (tests), else undefined. */
  get threadId(): number | undefined {
    return this.#worker?.threadId;
  }

  /**
   * Commits `items` in one transaction in the writer thread (`bodies`, holding their bodies, is
   * transferred: detached here once sent); resolves with their outcomes once
   * it committed, rejects with a `StorageFailureError` if the batch failed as a whole or the
   * thread died first.
   */
  write(now: number, items: readonly RowWriterItem[], bodies: ArrayBuffer): Promise<RowWriterResult> {
    if (this.#closed) return Promise.reject(new StorageFailureError('the output store is closed'));
    const worker = this.#running();
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      this.#inFlight.set(id, { resolve, reject });
      if (this.#inFlight.size === 1) worker.ref();
      worker.postMessage({ id, now, items, bodies } satisfies RowWriterRequest, [bodies]);
    });
  }

  /**
   * Stops the thread at once, as a crash would: batches in flight reject (tests; `close` is
   * the orderly way).
   */
  async terminate(): Promise<void> {
    await this.#worker?.terminate();
  }

  /** Lets the batches in flight finish, then closes the thread's connection and ends it. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const worker = this.#worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.ref();
    worker.postMessage('close');
    await exited;
  }

  #running(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(threadUrl, { workerData: this.#init });
    worker.unref();
    worker.on('message', (response: RowWriterResponse) => this.#answer(worker, response));
    worker.on('error', (error) => this.#died(worker, error));
    worker.on('exit', (code) => this.#died(worker, new Error(`it exited with code ${code}`)));
    this.#worker = worker;
    return worker;
  }

  #answer(worker: Worker, response: RowWriterResponse): void {
    const waiting = this.#inFlight.get(response.id);
    if (!waiting) return;
    this.#inFlight.delete(response.id);
    if (this.#inFlight.size === 0) worker.unref();
    if ('failure' in response)
      waiting.reject(new StorageFailureError(`cannot store outputs: ${response.failure}`));
    else waiting.resolve({ outcomes: response.outcomes, doomed: response.doomed });
  }

  #died(worker: Worker, error: unknown): void {
    if (this.#worker !== worker) return;
    this.#worker = undefined;
    const failure = new StorageFailureError(`the output store's writer thread stopped: ${String(error)}`, {
      cause: error,
    });
    const waiting = [...this.#inFlight.values()];
    this.#inFlight.clear();
    for (const batch of waiting) batch.reject(failure);
  }
}
