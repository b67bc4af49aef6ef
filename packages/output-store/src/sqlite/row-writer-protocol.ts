/**
 * What the SQLite store's writer thread is started with: the database and the SQL of every
 * statement it runs (prepared from `statementSql`, so the texts live in one place).
 *
 * @example
 * ```ts
 * const init: RowWriterInit = { path, busyTimeoutMs: 10_000, synchronous: 'NORMAL', sql, insertedColumns };
 * ```
 */
export interface RowWriterInit {
  readonly path: string;
  readonly busyTimeoutMs: number;
  readonly synchronous: 'NORMAL' | 'FULL';
  readonly sql: Readonly<Record<RowWriterStatement, string>>;
  /** The columns of the insert, in the order of an item's `parameters`. */
  readonly insertedColumns: readonly string[];
}

/** The statements the writer thread prepares (a subset of the store's). */
export type RowWriterStatement =
  | 'insert'
  | 'insertUnlessKeyed'
  | 'insertLabel'
  | 'byKey'
  | 'countSpawn'
  | 'removeRow'
  | 'removeLabels'
  | 'tombstone';

/**
 * One new output for the writer thread: its row's insert parameters (in `insertedColumns`
 * order; the body's `null`, its bytes at `body` = [offset, length] in the request's `bodies`),
 * its labels, and its spawn's quota when the intake counts one.
 *
 * @example
 * ```ts
 * const item: RowWriterItem = { parameters, body: [0, 1024], labels: [], maxOutputs: 16 };
 * ```
 */
export interface RowWriterItem {
  readonly parameters: readonly unknown[];
  readonly body?: readonly [offset: number, length: number];
  readonly labels: readonly (readonly [string, string])[];
  readonly maxOutputs?: number;
}

/**
 * A batch of items committed in one transaction; `now` is the epoch ms used for expiry checks.
 * The items' bodies travel packed in `bodies`, one buffer transferred rather than copied: a
 * body read into Node's buffer pool would otherwise be cloned with its whole pool slab.
 *
 * @example
 * ```ts
 * port.postMessage({ id: 1, now: Date.now(), items, bodies } satisfies RowWriterRequest, [bodies]);
 * ```
 */
export interface RowWriterRequest {
  readonly id: number;
  readonly now: number;
  readonly items: readonly RowWriterItem[];
  readonly bodies: ArrayBuffer;
}

/**
 * What became of one item once its batch committed: `created` (its row is in), a replay of a
 * live output under its key (`outId`), or a typed refusal that left nothing of it written.
 *
 * @example
 * ```ts
 * if ('created' in outcome) console.log('stored');
 * ```
 */
export type RowWriterOutcome =
  | { readonly created: true }
  | { readonly outId: string }
  | { readonly conflict: { readonly idempotencyKey: string; readonly existingOutId: string } }
  | { readonly forbidden: string }
  | { readonly failure: string };

/**
 * The answer to a {@link RowWriterRequest}, sent only after its transaction committed (or
 * `failure` when the whole batch was rolled back); `doomed` are the body files of expired rows
 * it replaced, for the main thread to unlink if no other row uses them.
 *
 * @example
 * ```ts
 * worker.on('message', (response: RowWriterResponse) => settle(response));
 * ```
 */
export type RowWriterResponse =
  | {
      readonly id: number;
      readonly outcomes: readonly RowWriterOutcome[];
      readonly doomed: readonly string[];
    }
  | { readonly id: number; readonly failure: string };
