import { describe, expect, it } from 'vitest';
import { parseSwarm } from '../dsl/parse-swarm.js';
import type { TaskProgress } from '../shared/types.js';
import { ContextPoolState, DEFAULT_CONTEXT_POOL_CAP } from './context-pool-state.js';

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

function poolWith(count: number, first?: string): ContextPoolState {
  const pool = new ContextPoolState();
  if (first !== undefined) pool.add({ taskId: first, task: first, outId: `out_${first}` }, 0);
  for (let index = 0; index < count; index++)
    pool.add({ taskId: `scan#${index}`, task: 'scan', outId: `out_scan_${index}` }, index + 1);
  return pool;
}

describe('ContextPoolState.applyCap', () => {
  it('keeps the newest entries, in pool order, when no unfinished task reads any', () => {
    const pool = poolWith(12);
    const removed = pool.applyCap(definition, progress({ scan: 'done', report: 'done' }), 5);
    expect(pool.pool.entries.map((entry) => entry.taskId)).toEqual([
      'scan#7',
      'scan#8',
      'scan#9',
      'scan#10',
      'scan#11',
    ]);
    expect(removed).toEqual(['scan#0', 'scan#1', 'scan#2', 'scan#3', 'scan#4', 'scan#5', 'scan#6']);
    expect(pool.pool.added).toBe(12);
  });

  it('keeps first what an unfinished task still reads (depends_on), however old', () => {
    const pool = poolWith(12, 'fetch');
    pool.applyCap(definition, progress({ fetch: 'done', scan: 'done', report: 'waiting' }), 3);
    expect(pool.pool.entries.map((entry) => entry.taskId)).toEqual(['fetch', 'scan#10', 'scan#11']);
  });

  it('forgets what only finished tasks read', () => {
    const pool = poolWith(12, 'fetch');
    pool.applyCap(definition, progress({ fetch: 'done', scan: 'done', report: 'done' }), 3);
    expect(pool.pool.entries.map((entry) => entry.taskId)).toEqual(['scan#9', 'scan#10', 'scan#11']);
  });

  it('never exceeds the cap, even when unfinished tasks read more than it holds (include_tasks)', () => {
    const pool = poolWith(12, 'fetch');
    // report reads fetch, digest reads scan: all 13 are read, so the newest 4 of them stay.
    pool.applyCap(definition, progress({ report: 'running', digest: 'pending' }), 4);
    expect(pool.pool.entries.map((entry) => entry.taskId)).toEqual([
      'scan#8',
      'scan#9',
      'scan#10',
      'scan#11',
    ]);
    pool.applyCap(definition, progress({ digest: 'pending' }), 2);
    expect(pool.pool.entries.map((entry) => entry.taskId)).toEqual(['scan#10', 'scan#11']);
  });

  it('leaves a pool within the cap as it is, and the default is documented', () => {
    const pool = poolWith(3);
    expect(pool.applyCap(definition, [], 3)).toEqual([]);
    expect(pool.pool.entries).toHaveLength(3);
    expect(DEFAULT_CONTEXT_POOL_CAP).toBe(500);
    expect(poolWith(DEFAULT_CONTEXT_POOL_CAP + 1).applyCap(definition, [])).toEqual(['scan#0']);
  });
});
