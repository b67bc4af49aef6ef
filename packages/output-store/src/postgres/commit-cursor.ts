import { InvalidOutputEventError } from '../errors.js';

/**
 * Where a PostgreSQL list page ended, in the order rows become visible for good: by the
 * inserting transaction's id (`xid8`), then `seq`. `xid`/`seq` is the last row delivered;
 * `pending` the transactions that were still running below it when the page was read (they
 * may yet commit rows that sort before it), each with the `seq` after which its rows are
 * still to come.
 *
 * @example
 * ```ts
 * const cursor: CommitCursor = { xid: 1042n, seq: 77, pending: [{ xid: 1039n, seq: 0 }] };
 * ```
 */
export interface CommitCursor {
  readonly xid: bigint;
  readonly seq: number;
  readonly pending: readonly { readonly xid: bigint; readonly seq: number }[];
}

/** A row as the list query returns it: its transaction id and sequence number. */
export interface CommitPosition {
  readonly xid: bigint;
  readonly seq: number;
}

const numberPart = /^\d{1,20}$/;

function after(left: CommitPosition, right: CommitPosition): boolean {
  return left.xid > right.xid || (left.xid === right.xid && left.seq > right.seq);
}

/**
 * Encodes a {@link CommitCursor} as an opaque page cursor.
 *
 * @example
 * ```ts
 * decodeCommitCursor(encodeCommitCursor(cursor)); // the same cursor
 * ```
 */
export function encodeCommitCursor(cursor: CommitCursor): string {
  const pending = cursor.pending.map((entry) => `${entry.xid}.${entry.seq}`).join(',');
  return Buffer.from(`c:${cursor.xid}:${cursor.seq}:${pending}`, 'utf8').toString('base64url');
}

/**
 * Decodes a page cursor of the PostgreSQL store; a cursor of the first schema (`s:<seq>`,
 * from before rows carried their transaction id) resumes at that `seq` among the rows
 * stored then, which all read as transaction 0. Throws {@link InvalidOutputEventError} on a
 * forged or damaged one.
 *
 * @example
 * ```ts
 * decodeCommitCursor(encodeCommitCursor({ xid: 9n, seq: 3, pending: [] })); // { xid: 9n, seq: 3, pending: [] }
 * ```
 */
export function decodeCommitCursor(text: string): CommitCursor {
  const invalid = () => new InvalidOutputEventError('cursor', 'is not a cursor returned by list');
  const decoded = Buffer.from(text, 'base64url').toString('utf8');
  const legacy = /^s:(\d{1,15})$/.exec(decoded);
  if (legacy?.[1]) return { xid: 0n, seq: Number(legacy[1]), pending: [] };
  const parts = decoded.split(':');
  if (parts.length !== 4 || parts[0] !== 'c') throw invalid();
  const [, xid = '', seq = '', pendingText = ''] = parts;
  if (!numberPart.test(xid) || !/^\d{1,15}$/.test(seq)) throw invalid();
  const pending =
    pendingText === ''
      ? []
      : pendingText.split(',').map((entry) => {
          const [pendingXid = '', pendingSeq = ''] = entry.split('.');
          if (!numberPart.test(pendingXid) || !/^\d{1,15}$/.test(pendingSeq)) throw invalid();
          return { xid: BigInt(pendingXid), seq: Number(pendingSeq) };
        });
  if (pending.length > 10_000) throw invalid();
  return { xid: BigInt(xid), seq: Number(seq), pending };
}

/**
 * The transactions running when a snapshot was taken, from `pg_current_snapshot()::text`
 * (`xmin:xmax:xip,…`).
 *
 * @example
 * ```ts
 * runningTransactions('100:105:100,103'); // [100n, 103n]
 * ```
 */
export function runningTransactions(snapshot: string): bigint[] {
  const running = snapshot.split(':')[2] ?? '';
  return running === '' ? [] : running.split(',').map((xid) => BigInt(xid));
}

/**
 * The cursor after a page: `page` is what was delivered (in order), `from` the cursor it was
 * read from (none: the first page), `running` the transactions still running when it was read.
 * The position moves to the last row delivered past it; a transaction still running below the
 * new position is pending (rows of it may commit later and must not be skipped); a pending
 * transaction that has finished stays pending only while the page ended inside (or before)
 * its rows.
 *
 * @example
 * ```ts
 * nextCommitCursor(undefined, [{ xid: 7n, seq: 1 }, { xid: 9n, seq: 2 }], [8n]);
 * // { xid: 9n, seq: 2, pending: [{ xid: 8n, seq: 0 }] }
 * ```
 */
export function nextCommitCursor(
  from: CommitCursor | undefined,
  page: readonly CommitPosition[],
  running: readonly bigint[],
): CommitCursor {
  let position: CommitPosition = from ?? { xid: 0n, seq: 0 };
  for (const row of page) if (after(row, position)) position = row;
  const last = page.at(-1);
  const progress = new Map<bigint, number>();
  for (const entry of from?.pending ?? []) progress.set(entry.xid, entry.seq);
  for (const row of page) if (progress.has(row.xid)) progress.set(row.xid, row.seq);
  const stillRunning = new Set(running);
  const pending: { xid: bigint; seq: number }[] = [];
  for (const [xid, seq] of progress) {
    // Finished, and the page went past its rows: all of them were delivered.
    if (!stillRunning.has(xid) && last !== undefined && last.xid > xid) continue;
    if (!stillRunning.has(xid) && last === undefined) continue;
    pending.push({ xid, seq });
  }
  for (const xid of stillRunning) {
    if (xid < position.xid && !progress.has(xid)) pending.push({ xid, seq: 0 });
  }
  pending.sort((left, right) => (left.xid < right.xid ? -1 : left.xid > right.xid ? 1 : 0));
  return { xid: position.xid, seq: position.seq, pending };
}
