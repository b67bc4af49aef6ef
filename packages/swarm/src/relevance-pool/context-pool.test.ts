import { describe, expect, it } from 'vitest';
import type { ContextPool, ContextPoolEntry } from '../contracts/relevance-pool-contracts.js';
import { validateSwarm } from '../dsl/parse-swarm.js';
import { contextMetrics } from './context-metrics.js';
import { planContext } from './plan-context.js';
import { pruneContext } from './prune-context.js';

const now = 1_800_000_000_000;
const definition = validateSwarm({
  name: 'pool',
  agents: { writer: { model: 'mock:writer' } },
  tasks: {
    fetch: { script: { content: 'echo' }, loop: { type: 'repeat', count: 3 } },
    clean: { script: { content: 'echo' }, depends_on: ['fetch'] },
    lint: { script: { content: 'echo' } },
    notes: { agent: 'writer', prompt: 'notes' },
    report: { agent: 'writer', prompt: 'report', depends_on: ['clean'] },
    picky: {
      script: { content: 'echo' },
      depends_on: ['clean'],
      context: { mode: 'manual', include_tasks: ['fetch'] },
    },
    alone: { script: { content: 'echo' }, depends_on: ['clean'], inject_context: false },
    narrow: {
      script: { content: 'echo' },
      depends_on: ['clean'],
      context: { exclude_tasks: ['fetch'] },
    },
  },
});

function entry(
  taskId: string,
  completedAgo: number,
  extra: Partial<ContextPoolEntry> = {},
): ContextPoolEntry {
  return {
    taskId,
    task: taskId.split('#')[0] as string,
    outId: `out_${taskId.replace('#', '_')}`,
    completedAt: now - completedAgo,
    lastAccessed: now - completedAgo,
    relevanceScore: 0,
    ...extra,
  };
}

const pool: ContextPool = {
  entries: [
    entry('fetch#0', 3_600_000),
    entry('fetch#1', 3_600_000),
    entry('fetch#2', 3_500_000),
    entry('clean', 3_000_000),
    entry('lint', 60_000),
    entry('notes', 7_200_000, { agent: 'writer' }),
  ],
  added: 6,
  checkpoints: [],
};

describe('planContext', () => {
  it('scores loop instances as their task: every instance of a direct dependency is relevance 1', () => {
    const plans = planContext({ definition, pool, tasks: ['clean', 'report'], now });
    expect(plans.clean?.entries.map((e) => [e.taskId, e.relevance])).toEqual([
      ['fetch#2', 1],
      ['fetch#0', 1],
      ['fetch#1', 1],
      ['lint', 0.3],
    ]);
    // report: clean is direct (1.0), notes shares its agent (0.5), the fetch instances are
    // transitive at depth 2 (0.8 / 2), lint finished a minute ago (recent: 0.3).
    expect(plans.report?.entries.map((e) => [e.taskId, e.relevance])).toEqual([
      ['clean', 1],
      ['notes', 0.5],
      ['fetch#2', 0.4],
      ['fetch#0', 0.4],
      ['fetch#1', 0.4],
      ['lint', 0.3],
    ]);
    expect(plans.report?.entries[0]).toEqual({ taskId: 'clean', outId: 'out_clean', relevance: 1 });
    expect(plans.report).toMatchObject({ maxBytes: 102_400, maxTasks: 10 });
  });

  it('honours manual include_tasks and exclude_tasks (a looped task standing for its instances) and inject_context: false', () => {
    const plans = planContext({ definition, pool, tasks: ['picky', 'alone', 'narrow'], now });
    expect(plans.picky?.entries.map((e) => e.taskId)).toEqual(['fetch#0', 'fetch#1', 'fetch#2']);
    expect(plans.alone).toBeUndefined();
    // exclude_tasks: [fetch] drops every fetch instance (they would score 0.4, over the 0.3 threshold).
    expect(plans.narrow?.entries.map((e) => e.taskId)).toEqual(['clean', 'lint']);
  });

  it('applies the swarm limits: max_context_tasks, the threshold and masking', () => {
    const limited = validateSwarm({
      ...definition,
      limits: { max_context_tasks: 2, relevance_threshold: 0.5, context_masking: { keep_recent: 1 } },
    });
    const plans = planContext({ definition: limited, pool, tasks: ['report'], now });
    expect(plans.report?.entries.map((e) => [e.taskId, e.masked === true])).toEqual([
      ['clean', false],
      ['notes', true],
    ]);
    expect(plans.report?.maxTasks).toBe(2);
  });

  it('applies min_relevance, max_bytes, a time window, and mode: none', () => {
    const tuned = validateSwarm({
      ...definition,
      limits: { time_window_secs: 3_300 },
      tasks: {
        ...definition.tasks,
        report: { ...definition.tasks.report, context: { min_relevance: 0.45, max_bytes: 2_048 } },
        quiet: { script: { content: 'echo' }, depends_on: ['clean'], context: { mode: 'none' } },
      },
    });
    const plans = planContext({ definition: tuned, pool, tasks: ['report', 'quiet'], now });
    // notes (2 h ago) and the fetch instances (about 1 h ago) are outside the 55-minute window.
    expect(plans.report?.entries.map((e) => e.taskId)).toEqual(['clean']);
    expect(plans.report?.maxBytes).toBe(2_048);
    expect(plans.quiet).toBeUndefined();
  });

  it('names a loop it shows only some outputs of, with its ok count and manifest', () => {
    // The pool keeps fetch's newest 3 of 5,000; clean depends on fetch, picky includes it by hand.
    const loops = { fetch: { ok: 5_000, manifest: 'out_m' } };
    const plans = planContext({ definition, pool, tasks: ['clean', 'picky', 'narrow', 'lint'], now, loops });
    expect(plans.clean?.loops).toEqual([{ task: 'fetch', shown: 3, total: 5_000, manifest: 'out_m' }]);
    expect(plans.picky?.loops).toEqual([{ task: 'fetch', shown: 3, total: 5_000, manifest: 'out_m' }]);
    // narrow excludes fetch: it names it nowhere.
    expect(plans.narrow?.loops).toBeUndefined();
    // max_context_tasks: 2 shows at most 2 of them; a loop still running has no manifest yet.
    const limited = validateSwarm({ ...definition, limits: { max_context_tasks: 2 } });
    const running = planContext({
      definition: limited,
      pool,
      tasks: ['clean'],
      now,
      loops: { fetch: { ok: 40 } },
    });
    expect(running.clean?.entries.map((e) => e.taskId)).toEqual(['fetch#2', 'fetch#0']);
    expect(running.clean?.loops).toEqual([{ task: 'fetch', shown: 2, total: 40 }]);
    // Every ok output shown: nothing more to name.
    const all = planContext({ definition, pool, tasks: ['clean'], now, loops: { fetch: { ok: 3 } } });
    expect(all.clean?.loops).toBeUndefined();
  });

  it('names a loop that pooled nothing when a manual context includes it (a loop a re-run reused whole)', () => {
    const empty: ContextPool = { entries: [], added: 0, checkpoints: [] };
    const plans = planContext({
      definition,
      pool: empty,
      tasks: ['picky', 'clean'],
      now,
      loops: { fetch: { ok: 120_000, manifest: 'out_m' } },
    });
    expect(plans.picky).toEqual({
      entries: [],
      maxBytes: 102_400,
      maxTasks: 10,
      loops: [{ task: 'fetch', shown: 0, total: 120_000, manifest: 'out_m' }],
    });
    // Scored contexts take a loop only through its pooled outputs.
    expect(plans.clean).toBeUndefined();
  });

  it('plans nothing for a task no pooled output is relevant to', () => {
    const old: ContextPool = { entries: [entry('lint', 3_600_000)], added: 1, checkpoints: [] };
    expect(planContext({ definition, pool: old, tasks: ['report'], now })).toEqual({});
  });
});

describe('pruneContext and contextMetrics', () => {
  it('removes what a due checkpoint_and_prune hook drops, and nothing before it is due', () => {
    const hook = { every: 5, strategy: 'most_recent' as const, keep_count: 2 };
    expect(pruneContext({ definition, pool, hook, sinceCheckpoint: 6, now }).sort()).toEqual([
      'fetch#0',
      'fetch#1',
      'fetch#2',
      'notes',
    ]);
    expect(pruneContext({ definition, pool, hook, sinceCheckpoint: 4, now })).toEqual([]);
    // direct_dependencies keeps outputs some task depends on: fetch instances and clean.
    const dependencies = { every: 1, strategy: 'direct_dependencies' as const };
    expect(pruneContext({ definition, pool, hook: dependencies, sinceCheckpoint: 1, now }).sort()).toEqual([
      'lint',
      'notes',
    ]);
  });

  it('keeps the last read (lru) or the most relevant (highest_relevance), ties by recency', () => {
    const scored: ContextPool = {
      entries: [
        entry('clean', 3_000, { lastAccessed: now - 10, relevanceScore: 0.4 }),
        entry('lint', 2_000, { lastAccessed: now - 500, relevanceScore: 1 }),
        entry('notes', 1_000, { lastAccessed: now - 900, relevanceScore: 0.4 }),
      ],
      added: 3,
      checkpoints: [],
    };
    const lru = { every: 1, strategy: 'lru' as const, keep_count: 1 };
    expect(pruneContext({ definition, pool: scored, hook: lru, sinceCheckpoint: 1, now })).toEqual([
      'lint',
      'notes',
    ]);
    const relevant = { every: 1, strategy: 'highest_relevance' as const, keep_count: 2 };
    expect(pruneContext({ definition, pool: scored, hook: relevant, sinceCheckpoint: 1, now })).toEqual([
      'clean',
    ]);
  });

  it('never drops the output of a task that a task still to run depends on, whatever the strategy', () => {
    const scored: ContextPool = {
      entries: [
        entry('fetch#0', 5_000, { relevanceScore: 0 }),
        entry('clean', 3_000, { relevanceScore: 0 }),
        entry('lint', 2_000, { relevanceScore: 1 }),
      ],
      added: 3,
      checkpoints: [],
    };
    const relevant = { every: 1, strategy: 'highest_relevance' as const, keep_count: 1 };
    expect(pruneContext({ definition, pool: scored, hook: relevant, sinceCheckpoint: 1, now })).toEqual([
      'fetch#0',
      'clean',
    ]);
    // report, still to run, depends on clean.
    expect(
      pruneContext({
        definition,
        pool: scored,
        hook: relevant,
        sinceCheckpoint: 1,
        now,
        pending: ['report'],
      }),
    ).toEqual(['fetch#0']);
    // picky depends on clean too, and only includes fetch in its context: no dependency, pruned.
    const recent = { every: 1, strategy: 'most_recent' as const, keep_count: 1 };
    expect(
      pruneContext({ definition, pool: scored, hook: recent, sinceCheckpoint: 1, now, pending: ['picky'] }),
    ).toEqual(['fetch#0']);
    expect(pruneContext({ definition, pool: scored, hook: recent, sinceCheckpoint: 1, now })).toEqual([
      'fetch#0',
      'clean',
    ]);
  });

  it('measures the pool in stored output bytes, counting outputs over max_context_bytes as cut', () => {
    const big: ContextPool = {
      entries: [entry('clean', 1, { relevanceScore: 1 }), entry('lint', 1)],
      added: 2,
      checkpoints: [],
      lastPrunedAt: now,
    };
    const sizes = new Map([
      ['out_clean', 200_000],
      ['out_lint', 100],
    ]);
    expect(contextMetrics({ definition, pool: big }, sizes)).toEqual({
      totalBytes: 200_100,
      taskCount: 2,
      truncatedCount: 1,
      externalCount: 2,
      avgRelevance: 0.5,
      lastPrunedAt: now,
    });
  });
});
