import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { LocalBlobStore } from '../blobs/local-blob-store.js';
import { createPostgresDatabase, type PostgresDatabase } from '../testing/index.js';
import { PostgresOutputStore } from './postgres-output-store.js';

let database: PostgresDatabase;
let scratch: string;
beforeAll(async () => {
  database = await createPostgresDatabase(inject('postgresUrl'), 'labels');
  scratch = await mkdtemp(join(tmpdir(), 'wharf-pg-labels-'));
});
afterAll(async () => {
  await database?.drop();
  await rm(scratch, { recursive: true, force: true });
});

/** Every node of an `EXPLAIN (FORMAT JSON)` plan, depth first. */
function planNodes(plan: Record<string, unknown>): Record<string, unknown>[] {
  const children = (plan.Plans as Record<string, unknown>[] | undefined) ?? [];
  return [plan, ...children.flatMap(planNodes)];
}

describe('PostgresOutputStore lists by labels through an index', () => {
  // A wide run's evidence finds each worker's records by labels on every write: a list that
  // read the whole table made the cost per worker grow with everything stored before it.
  it('answers a label list from the label index, not by reading the table', async () => {
    const schema = `labels_${randomBytes(4).toString('hex')}`;
    const pool = new pg.Pool({ connectionString: database.url, max: 2 });
    const store = await PostgresOutputStore.open({
      pool,
      schema,
      blobs: new LocalBlobStore({ root: join(scratch, schema) }),
    });
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    try {
      // 6,000 rows of one run as the evidence store writes them, each in a transaction of its
      // own as the store commits them (so each has an xid of its own), plus one we look for.
      await admin.query(
        `DO $$ BEGIN FOR g IN 1..6000 LOOP
           INSERT INTO "${schema}".outputs (out_id, owner_id, run_id, spawn_id, idempotency_key, content_type,
             size_bytes, sha256, created_at, storage, body, labels)
           VALUES ('out_' || g, 'owner', 'run', 'worker-' || g, 'k-' || g, 'text/plain', 300, md5(g::text), 0,
             'inline', convert_to(repeat(md5(g::text), 10), 'UTF8'),
             jsonb_build_object('wharf.evidence.kind', 'metadata', 'wharf.evidence.worker', 'worker-' || g,
               'wharf.evidence.job', 'job-' || g, 'wharf.evidence.run', 'run'));
           COMMIT;
         END LOOP; END $$`,
      );
      const wanted = await store.emit({
        producer: { ownerId: 'owner', runId: 'run', spawnId: 'worker-x' },
        content: { kind: 'text', text: 'wanted' },
        idempotencyKey: 'wanted',
        labels: { 'wharf.evidence.kind': 'metadata', 'wharf.evidence.worker': 'worker-x' },
      });
      const query = vi.spyOn(pool, 'query');
      const page = await store.list({
        labels: { 'wharf.evidence.kind': 'metadata', 'wharf.evidence.worker': 'worker-x' },
      });
      expect(page.records.map((record) => record.outId)).toEqual([wanted.outId]);
      const listCall = query.mock.calls.find(([text]) => String(text).includes('pg_current_snapshot'));
      expect(listCall, 'the list query').toBeDefined();
      const [text, values] = listCall as unknown as [string, unknown[]];
      query.mockRestore();

      // First as a store growing under load plans it, before autovacuum has analyzed the new
      // rows (no statistics yet), then with fresh statistics.
      for (const statistics of ['none yet', 'fresh']) {
        if (statistics === 'fresh') await admin.query(`ANALYZE "${schema}".outputs`);
        const explain = async (options: string) => {
          const { rows } = await admin.query(`EXPLAIN (${options}FORMAT JSON) ${text}`, values);
          return planNodes((rows[0]['QUERY PLAN'] as { Plan: Record<string, unknown> }[])[0]?.Plan ?? {});
        };
        const nodes = await explain('');
        expect(nodes.map((node) => node['Index Name']).filter(Boolean), statistics).toContain(
          'outputs_by_labels',
        );
        expect(
          nodes.filter((node) => node['Node Type'] === 'Seq Scan'),
          statistics,
        ).toEqual([]);
        // Run, not only planned: no step reads the table's other rows (a first page once ANDed
        // every row's entry in the commit index into the label lookup: 6,000 here).
        const ran = await explain('ANALYZE, ');
        expect(
          ran.map((node) => node['Actual Rows'] as number).filter((rows) => rows > 10),
          statistics,
        ).toEqual([]);
      }
      const indexes = await admin.query(
        `SELECT indexdef FROM pg_indexes WHERE schemaname = $1 AND indexname = 'outputs_by_labels'`,
        [schema],
      );
      // Without fast update: a pending list is read in full by each lookup until a vacuum.
      expect(indexes.rows[0]?.indexdef).toMatch(/USING gin \(labels jsonb_path_ops\)/);
      const options = await admin.query(
        `SELECT reloptions FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
         WHERE n.nspname = $1 AND c.relname = 'outputs_by_labels'`,
        [schema],
      );
      expect(options.rows[0]?.reloptions).toEqual(['fastupdate=off']);
    } finally {
      await admin.end();
      await store.close();
      await pool.end();
    }
  });
});
