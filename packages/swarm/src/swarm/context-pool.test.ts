import { describe, expect, it } from 'vitest';
import type { TaskProgress } from '../contracts/progress-contracts.js';
import type { ContextPool } from '../contracts/relevance-pool-contracts.js';
import { parseSwarm } from '../dsl/parse-swarm.js';
import {
  addOutputs,
  applyPrune,
  capPool,
  DEFAULT_CONTEXT_POOL_CAP,
  duePrunes,
  emptyContextPool,
  keepNewest,
  markRead,
} from './context-pool.js';

const definition = parseSwarm(`
name: pooled
tasks:
  fetch: { script: { content: 'true' } }
  scan:
    loop: { type: repeat, count: 12 }
    script: { content: 'true' }
  report:
    depends_on: [fetch]
    script: { content: 'true' }
  digest:
    context: { mode: manual, include_tasks: [scan] }
    script: { content: 'true' }
`);

const progress = (statuses: Record<string, TaskProgress['status']>) =>
  Object.entries(statuses).map(([task, status]) => ({ task, status }));

function poolWith(count: number, first?: string): ContextPool {
  let pool = emptyContextPool();
  if (first !== undefined)
    pool = addOutputs(pool, [{ taskId: first, task: first, outId: `out_${first}` }], 0);
  for (let index = 0; index < count; index++)
    pool = addOutputs(
      pool,
      [{ taskId: `scan#${index}`, task: 'scan', outId: `out_scan_${index}` }],
      index + 1,
    );
  return pool;
}

const ids = (pool: ContextPool) => pool.entries.map((entry) => entry.taskId);

describe('capPool', () => {
  it('keeps the newest entries, in pool order, when no unfinished task reads any', () => {
    const { pool, removed } = capPool(
      poolWith(12),
      definition,
      progress({ scan: 'done', report: 'done' }),
      5,
    );
    expect(ids(pool)).toEqual(['scan#7', 'scan#8', 'scan#9', 'scan#10', 'scan#11']);
    expect(removed).toEqual(['scan#0', 'scan#1', 'scan#2', 'scan#3', 'scan#4', 'scan#5', 'scan#6']);
    expect(pool.added).toBe(12);
  });

  it('keeps first what an unfinished task still reads (depends_on), however old', () => {
    const { pool } = capPool(
      poolWith(12, 'fetch'),
      definition,
      progress({ fetch: 'done', scan: 'done', report: 'waiting' }),
      3,
    );
    expect(ids(pool)).toEqual(['fetch', 'scan#10', 'scan#11']);
  });

  it('forgets what only finished tasks read', () => {
    const { pool } = capPool(
      poolWith(12, 'fetch'),
      definition,
      progress({ fetch: 'done', scan: 'done', report: 'done' }),
      3,
    );
    expect(ids(pool)).toEqual(['scan#9', 'scan#10', 'scan#11']);
  });

  it('never exceeds the cap, even when unfinished tasks read more than it holds (include_tasks)', () => {
    // report reads fetch, digest reads scan: all 13 are read, so the newest 4 of them stay.
    const { pool } = capPool(
      poolWith(12, 'fetch'),
      definition,
      progress({ report: 'running', digest: 'pending' }),
      4,
    );
    expect(ids(pool)).toEqual(['scan#8', 'scan#9', 'scan#10', 'scan#11']);
    expect(ids(capPool(pool, definition, progress({ digest: 'pending' }), 2).pool)).toEqual([
      'scan#10',
      'scan#11',
    ]);
  });

  it('leaves a pool within the cap as it is, and the default is documented', () => {
    const pool = poolWith(3);
    expect(capPool(pool, definition, [], 3)).toEqual({ pool, removed: [] });
    expect(capPool(pool, definition, [], 3).pool).toBe(pool);
    expect(DEFAULT_CONTEXT_POOL_CAP).toBe(500);
    expect(capPool(poolWith(DEFAULT_CONTEXT_POOL_CAP + 1), definition, []).removed).toEqual(['scan#0']);
  });
});

describe('the context pool rules return the next pool', () => {
  it('never change the pool they are given', () => {
    const pool = poolWith(12, 'fetch');
    const before = structuredClone(pool);
    addOutputs(pool, [{ taskId: 'report', task: 'report', outId: 'out_report', agent: 'writer' }], 50);
    keepNewest(pool, 'scan', 2);
    markRead(
      pool,
      {
        report: {
          entries: [{ taskId: 'fetch', outId: 'out_fetch', relevance: 0.9 }],
          maxBytes: 1,
          maxTasks: 1,
        },
      },
      60,
    );
    applyPrune(pool, 0, ['fetch'], 70);
    capPool(pool, definition, [], 3);
    expect(pool).toEqual(before);
  });

  it('adds outputs in order, completed and read when folded, with the agent that wrote them', () => {
    const pool = addOutputs(
      emptyContextPool(),
      [
        { taskId: 'fetch', task: 'fetch', outId: 'out_fetch' },
        { taskId: 'report', task: 'report', outId: 'out_report', agent: 'writer' },
      ],
      40,
    );
    expect(pool).toEqual({
      entries: [
        {
          taskId: 'fetch',
          task: 'fetch',
          outId: 'out_fetch',
          completedAt: 40,
          lastAccessed: 40,
          relevanceScore: 0,
        },
        {
          taskId: 'report',
          task: 'report',
          outId: 'out_report',
          completedAt: 40,
          lastAccessed: 40,
          relevanceScore: 0,
          agent: 'writer',
        },
      ],
      added: 2,
      checkpoints: [],
    });
    expect(addOutputs(pool, [], 50)).toBe(pool);
  });

  it("keeps a loop's newest entries only, and the other tasks' as they are", () => {
    const pool = keepNewest(poolWith(5, 'fetch'), 'scan', 2);
    expect(ids(pool)).toEqual(['fetch', 'scan#3', 'scan#4']);
    expect(pool.added).toBe(6);
    expect(keepNewest(pool, 'scan', 2)).toBe(pool);
  });

  it('marks what the plans chose as read, keeping the best relevance each had', () => {
    const plan = (relevance: number) => ({
      entries: [{ taskId: 'scan#1', outId: 'out_scan_1', relevance }],
      maxBytes: 100,
      maxTasks: 10,
    });
    const once = markRead(poolWith(2), { a: plan(0.8), b: plan(0.3) }, 60);
    expect(once.entries[1]).toMatchObject({ taskId: 'scan#1', lastAccessed: 60, relevanceScore: 0.8 });
    expect(once.entries[0]).toMatchObject({ taskId: 'scan#0', lastAccessed: 1, relevanceScore: 0 });
    const twice = markRead(once, { a: plan(0.5) }, 70);
    expect(twice.entries[1]).toMatchObject({ lastAccessed: 70, relevanceScore: 0.8 });
  });

  it('checkpoints a hook once it pruned, so it is due again only after `every` more outputs', () => {
    const hooked = parseSwarm(`
name: hooked
tasks:
  scan: { loop: { type: repeat, count: 4 }, script: { content: 'true' } }
hooks:
  post_task:
    - checkpoint_and_prune: { every: 2, strategy: most_recent, keep_count: 1 }
`);
    const pool = poolWith(3);
    expect(duePrunes(pool, hooked)).toEqual([
      { index: 0, hook: { every: 2, strategy: 'most_recent', keep_count: 1 }, sinceCheckpoint: 3 },
    ]);
    const pruned = applyPrune(pool, 0, ['scan#0', 'scan#1'], 70);
    expect(pruned).toEqual({ entries: [pool.entries[2]], added: 3, checkpoints: [3], lastPrunedAt: 70 });
    expect(duePrunes(pruned, hooked)).toEqual([]);
    expect(duePrunes(addOutputs(pruned, pool.entries, 80), hooked)).toHaveLength(1);
  });
});
