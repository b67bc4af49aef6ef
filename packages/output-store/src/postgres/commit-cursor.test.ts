import { describe, expect, it } from 'vitest';
import { encodeCursor } from '../cursor.js';
import {
  type CommitCursor,
  decodeCommitCursor,
  encodeCommitCursor,
  nextCommitCursor,
  runningTransactions,
} from './commit-cursor.js';

describe('commit cursors', () => {
  it('round-trip, read a first-schema seq cursor as transaction 0, and refuse anything else', () => {
    const cursor: CommitCursor = {
      xid: 18446744073709551615n,
      seq: 12,
      pending: [
        { xid: 7n, seq: 0 },
        { xid: 9n, seq: 4 },
      ],
    };
    expect(decodeCommitCursor(encodeCommitCursor(cursor))).toEqual(cursor);
    expect(decodeCommitCursor(encodeCursor(42))).toEqual({ xid: 0n, seq: 42, pending: [] });
    for (const forged of [
      '',
      'not-a-cursor',
      Buffer.from('c:1:2').toString('base64url'),
      Buffer.from('c:x:2:').toString('base64url'),
      Buffer.from('c:1:2:3').toString('base64url'),
    ]) {
      expect(() => decodeCommitCursor(forged), forged).toThrow(
        expect.objectContaining({ code: 'INVALID_EVENT', field: 'cursor' }),
      );
    }
  });

  it('reads the running transactions of a snapshot', () => {
    expect(runningTransactions('100:105:100,103')).toEqual([100n, 103n]);
    expect(runningTransactions('100:100:')).toEqual([]);
  });

  it('moves to the last row delivered and keeps the transactions still running below it', () => {
    const first = nextCommitCursor(
      undefined,
      [
        { xid: 7n, seq: 1 },
        { xid: 9n, seq: 2 },
      ],
      [8n, 11n],
    );
    expect(first).toEqual({ xid: 9n, seq: 2, pending: [{ xid: 8n, seq: 0 }] });
    // Transaction 8 committed two rows since: they come first, and it is done with.
    const second = nextCommitCursor(
      first,
      [
        { xid: 8n, seq: 3 },
        { xid: 8n, seq: 5 },
        { xid: 10n, seq: 4 },
      ],
      [11n],
    );
    expect(second).toEqual({ xid: 10n, seq: 4, pending: [] });
  });

  it('keeps a finished transaction pending while the page ended inside or before its rows', () => {
    const from: CommitCursor = {
      xid: 20n,
      seq: 50,
      pending: [
        { xid: 12n, seq: 0 },
        { xid: 15n, seq: 0 },
      ],
    };
    // The page ran out inside transaction 12's rows: 12 keeps its progress, 15 was not reached.
    const cut = nextCommitCursor(
      from,
      [
        { xid: 12n, seq: 30 },
        { xid: 12n, seq: 31 },
      ],
      [],
    );
    expect(cut).toEqual({
      xid: 20n,
      seq: 50,
      pending: [
        { xid: 12n, seq: 31 },
        { xid: 15n, seq: 0 },
      ],
    });
    const rest = nextCommitCursor(
      cut,
      [
        { xid: 12n, seq: 32 },
        { xid: 15n, seq: 40 },
        { xid: 21n, seq: 51 },
      ],
      [],
    );
    expect(rest).toEqual({ xid: 21n, seq: 51, pending: [] });
  });
});
