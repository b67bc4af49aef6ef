import { describe, expect, it } from 'vitest';
import { IdempotencyConflictError } from '../errors.js';
import type { OutputEvent } from '../types.js';
import { scratchDatabase } from './scratch-database.test.data.js';
import { SqliteOutputStore } from './sqlite-output-store.js';

const producer = { ownerId: 'owner', runId: 'run', spawnId: 'spawn' };

function textEvent(key: string, text: string, extra: Partial<OutputEvent> = {}): OutputEvent {
  return { producer, idempotencyKey: key, content: { kind: 'text', text }, ...extra };
}

describe.each([false, true])('SqliteOutputStore group commit (writerThread: %s)', (writerThread) => {
  const scratch = scratchDatabase('wharf-output-group-');

  it('settles each emit of one batch on its own: a conflict fails only its emit, the rest commit', async () => {
    const store = new SqliteOutputStore({ path: scratch.dbPath, inlineThresholdBytes: 1024, writerThread });
    const first = await store.emit(textEvent('taken', 'original'));
    // Emitted in one turn, so they share one write transaction.
    const settled = await Promise.allSettled([
      store.emit(textEvent('a', 'alpha')),
      store.emit(textEvent('taken', 'a different body')),
      store.emit(textEvent('taken', 'original')),
      store.emit(textEvent('labelled', 'beta', { labels: { kind: 'report' } })),
      store.emit(textEvent('large', 'x'.repeat(4096))),
      store.emit(textEvent('a', 'alpha')),
    ]);
    expect(settled.map((outcome) => outcome.status)).toEqual([
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
      'fulfilled',
      'fulfilled',
    ]);
    const conflict = settled[1];
    expect(conflict?.status === 'rejected' && IdempotencyConflictError.isInstance(conflict.reason)).toBe(
      true,
    );
    const refs = settled.map((outcome) => (outcome.status === 'fulfilled' ? outcome.value : undefined));
    expect(refs[2]).toEqual(first);
    expect(refs[5]).toEqual(refs[0]);
    await store.close();

    const reopened = new SqliteOutputStore({
      path: scratch.dbPath,
      inlineThresholdBytes: 1024,
      writerThread,
    });
    expect(await reopened.count({ spawnId: 'spawn' })).toBe(4);
    const labelled = refs[3];
    const large = refs[4];
    if (!labelled || !large) throw new Error('emits did not settle');
    expect((await reopened.stat(labelled)).labels).toEqual({ kind: 'report' });
    expect(Buffer.from((await reopened.get(large)).body).toString()).toBe('x'.repeat(4096));
    expect(
      (await reopened.list({ labels: { kind: 'report' } })).records.map((record) => record.outId),
    ).toEqual([labelled.outId]);
    await reopened.close();
  });
});
