import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { isOutId } from '../ids.js';
import { scratchDatabase } from './scratch-database.test.data.js';
import { SqliteOutputStore } from './sqlite-output-store.js';

const producer = { ownerId: 'o', runId: 'r', spawnId: 's' };

describe('SqliteOutputStore output ids', () => {
  const scratch = scratchDatabase('wharf-out-ids-');

  it('keeps outputs stored under fully random ids readable beside time-ordered new ones', async () => {
    // An output stored before ids were time-ordered: its row carries a random id.
    const before = new SqliteOutputStore({ path: scratch.dbPath });
    const stored = await before.emit({
      producer,
      idempotencyKey: 'old',
      content: { kind: 'text', text: 'old' },
    });
    await before.close();
    const oldId = `out_${randomBytes(12).toString('base64url')}`;
    const db = new Database(scratch.dbPath);
    db.prepare('UPDATE outputs SET out_id = ? WHERE out_id = ?').run(oldId, stored.outId);
    db.close();

    const store = new SqliteOutputStore({ path: scratch.dbPath });
    try {
      const created = [];
      for (let index = 0; index < 20; index++) {
        created.push(
          (
            await store.emit({
              producer,
              idempotencyKey: `new-${index}`,
              content: { kind: 'text', text: `${index}` },
            })
          ).outId,
        );
      }
      expect(created.every(isOutId)).toBe(true);
      // Time first: ids of a later millisecond sort after, so the index grows at its end.
      const times = created.map((outId) => outId.slice(0, 11));
      expect([...times].sort()).toEqual(times);
      expect(Buffer.from((await store.get({ outId: oldId })).body).toString()).toBe('old');
      expect(await store.findByIdempotencyKey(producer, 'old')).toEqual({ outId: oldId });
      const listed = await store.list({ ...producer, limit: 100 });
      expect(listed.records.map((record) => record.outId)).toEqual([oldId, ...created]);
      expect(await store.delete({ outId: oldId })).toBe(true);
      await expect(store.stat({ outId: oldId })).rejects.toMatchObject({
        code: 'NOT_FOUND',
        reason: 'deleted',
      });
    } finally {
      await store.close();
    }
  });
});
