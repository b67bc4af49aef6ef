// The SQLite store's writer thread (see `row-writer.ts`): it owns its own connection to the
// store's database and commits the batches of new outputs the main thread sends, answering
// each only after its transaction committed. It imports nothing of this package at run time,
// so that it starts the same from the built files and from the sources (type stripping).
import { parentPort, workerData } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type {
  RowWriterInit,
  RowWriterItem,
  RowWriterOutcome,
  RowWriterRequest,
} from './row-writer-protocol.js';

interface KeyHolder {
  readonly out_id: string;
  readonly sha256: string;
  readonly expires_at: number | null;
}

/** A refusal of one item inside the batch: its savepoint is rolled back, the rest go on. */
class ItemRefused extends Error {
  readonly outcome: RowWriterOutcome;
  constructor(outcome: RowWriterOutcome) {
    super('refused');
    this.outcome = outcome;
  }
}

const init = workerData as RowWriterInit;
const port = parentPort;
if (!port) throw new Error('row-writer-thread runs only as a worker thread');

/** Where a column's value sits among an item's insert parameters. */
function position(column: string): number {
  const index = init.insertedColumns.indexOf(column);
  if (index < 0) throw new Error(`the insert has no column ${column}`);
  return index;
}
const OUT_ID = position('out_id');
const OWNER_ID = position('owner_id');
const RUN_ID = position('run_id');
const SPAWN_ID = position('spawn_id');
const IDEMPOTENCY_KEY = position('idempotency_key');
const SHA256 = position('sha256');
const BODY = position('body');

const db = new Database(init.path, { timeout: init.busyTimeoutMs });
db.pragma('journal_mode = WAL');
db.pragma(`synchronous = ${init.synchronous}`);
db.pragma('foreign_keys = ON');
const statements = Object.fromEntries(
  Object.entries(init.sql).map(([name, sql]) => [name, db.prepare(sql)]),
) as Record<keyof RowWriterInit['sql'], Database.Statement>;

/** The live or expired row holding an item's key, if any. */
function holderOf(parameters: readonly unknown[]): KeyHolder | undefined {
  return statements.byKey.get(
    parameters[OWNER_ID],
    parameters[RUN_ID],
    parameters[SPAWN_ID],
    parameters[IDEMPOTENCY_KEY],
  ) as KeyHolder | undefined;
}

/** The outcome for a key held by a live row: a replay of it, or a conflict for other bytes. */
function replayOf(item: RowWriterItem, holder: KeyHolder): RowWriterOutcome {
  if (holder.sha256 === item.parameters[SHA256]) return { outId: holder.out_id };
  return {
    conflict: { idempotencyKey: String(item.parameters[IDEMPOTENCY_KEY]), existingOutId: holder.out_id },
  };
}

function live(holder: KeyHolder, now: number): boolean {
  return holder.expires_at === null || holder.expires_at > now;
}

/** The quota check of the store's `#assertRoom`: a full spawn may only replay a live key. */
function assertRoom(item: RowWriterItem, maxOutputs: number, now: number): void {
  const { parameters } = item;
  const { total } = statements.countSpawn.get(
    parameters[OWNER_ID],
    parameters[RUN_ID],
    parameters[SPAWN_ID],
    now,
  ) as {
    total: number;
  };
  if (total < maxOutputs) return;
  const holder = holderOf(parameters);
  if (holder && live(holder, now)) return;
  throw new ItemRefused({ forbidden: `this spawn may store at most ${maxOutputs} outputs` });
}

/** The store's `#insert` for an inline body: replay, conflict, or replace an expired holder and insert. */
function insertFull(item: RowWriterItem, now: number, doomed: Set<string>): RowWriterOutcome {
  const holder = holderOf(item.parameters);
  if (holder) {
    if (live(holder, now)) {
      const outcome = replayOf(item, holder);
      if ('conflict' in outcome) throw new ItemRefused(outcome);
      return outcome;
    }
    const removed = statements.removeRow.get(holder.out_id) as
      | { sha256: string; storage: string }
      | undefined;
    if (removed) {
      statements.removeLabels.run(holder.out_id);
      statements.tombstone.run(holder.out_id, 'expired', now);
      if (removed.storage === 'file') doomed.add(removed.sha256);
    }
  }
  statements.insert.run(...item.parameters);
  for (const [key, value] of item.labels) statements.insertLabel.run(key, value, item.parameters[OUT_ID]);
  return { created: true };
}

const insertInSavepoint = db.transaction(insertFull);

function commitItem(item: RowWriterItem, now: number, doomed: Set<string>): RowWriterOutcome {
  try {
    if (item.maxOutputs !== undefined) assertRoom(item, item.maxOutputs, now);
    if (item.labels.length === 0) {
      // One INSERT is atomic on its own: a small unlabelled output needs no savepoint.
      if (statements.insertUnlessKeyed.run(...item.parameters).changes === 1) return { created: true };
      const holder = holderOf(item.parameters);
      if (holder && live(holder, now)) return replayOf(item, holder);
    }
    return insertInSavepoint(item, now, doomed);
  } catch (error) {
    if (error instanceof ItemRefused) return error.outcome;
    // An error that ended the whole transaction fails the batch rather than letting the next
    // items run outside it.
    if (!db.inTransaction) throw error;
    return { failure: String(error) };
  }
}

const commitBatch = db.transaction((request: RowWriterRequest, doomed: Set<string>) =>
  request.items.map((item) => commitItem(item, request.now, doomed)),
);

port.on('message', (message: RowWriterRequest | 'close') => {
  if (message === 'close') {
    db.close();
    port.close();
    return;
  }
  const doomed = new Set<string>();
  const bodies = Buffer.from(message.bodies);
  for (const item of message.items) {
    if (item.body)
      (item.parameters as unknown[])[BODY] = bodies.subarray(item.body[0], item.body[0] + item.body[1]);
  }
  try {
    const outcomes = commitBatch.immediate(message, doomed);
    port.postMessage({ id: message.id, outcomes, doomed: [...doomed] });
  } catch (error) {
    port.postMessage({ id: message.id, failure: String(error) });
  }
});
