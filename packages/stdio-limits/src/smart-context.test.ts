import { describe, expect, it } from 'vitest';
import { parseWorkflowYaml } from './limits.js';
import type { TaskOutput } from './schemas.js';
import { buildSmartContext, renderContext, selectContext } from './smart-context.js';
import { outputFixture } from './test-fixtures.js';
import type { WorkflowState } from './workflow-state.js';

const workflow = parseWorkflowYaml(`
tasks:
  fetch: { agent: fetcher }
  clean: { agent: cleaner, depends_on: [fetch] }
  process: { agent: processor, depends_on: [clean, extra] }
  extra: { agent: x }
  helper: { agent: processor }
  noisy: { agent: noise }
  manual_task: { depends_on: [fetch], context: { mode: manual, include_tasks: [noisy, fetch] } }
  picky: { depends_on: [clean, extra], context: { include_tasks: [clean], exclude_tasks: [extra] } }
  strict: { depends_on: [clean], context: { min_relevance: 0.8, max_bytes: 50000 } }
  silent: { depends_on: [fetch], inject_context: false }
  quiet: { depends_on: [fetch], context: { mode: none } }
`);
const now = 1_000_000_000;
const state: WorkflowState = {
  taskOutputs: {
    fetch: outputFixture('fetch', { content: 'rows: 120', completedAt: now - 3_600_000 }),
    clean: outputFixture('clean', {
      content: 'cleaned 118 rows',
      completedAt: now - 1_800_000,
      truncated: true,
    }),
    extra: outputFixture('extra', { content: 'extra data', completedAt: now - 1_700_000 }),
    helper: outputFixture('helper', { content: 'helper notes', completedAt: now - 1_600_000 }),
    noisy: outputFixture('noisy', { content: 'noise', completedAt: now - 60_000 }),
  },
};

describe('buildSmartContext', () => {
  it('orders by relevance for the current task, then recency, and ends with the totals', () => {
    const context = buildSmartContext({ currentTaskId: 'process', workflow, state, now });
    expect(context.text).toBe(
      [
        '=== RELEVANT CONTEXT ===\n\n',
        'Task: extra (relevance: 1.00)\nextra data\n\n',
        'Task: clean (relevance: 1.00)\n[Output was truncated]\ncleaned 118 rows\n\n',
        'Task: helper (relevance: 0.50)\nhelper notes\n\n',
        'Task: fetch (relevance: 0.40)\nrows: 120\n\n',
        'Task: noisy (relevance: 0.30)\nnoise\n\n',
        '=== END CONTEXT (5 tasks, 52 bytes) ===\n',
      ].join(''),
    );
  });

  it('is deterministic for equal scores regardless of insertion order', () => {
    const reversed: WorkflowState = {
      taskOutputs: Object.fromEntries(Object.entries(state.taskOutputs).reverse()),
    };
    const tied = (taskOutputs: WorkflowState) =>
      buildSmartContext({
        currentTaskId: 'process',
        workflow,
        state: taskOutputs,
        now,
        config: { relevanceThreshold: 0 },
      });
    expect(tied(reversed).text).toBe(tied(state).text);
    const same = { a: outputFixture('a', { completedAt: now }), b: outputFixture('b', { completedAt: now }) };
    const ids = (taskOutputs: WorkflowState['taskOutputs']) =>
      buildSmartContext({ currentTaskId: 'z', workflow, state: { taskOutputs }, now }).tasks.map(
        (task) => task.taskId,
      );
    expect(ids(same)).toEqual(['a', 'b']);
    expect(ids({ b: same.b, a: same.a })).toEqual(['a', 'b']);
  });

  it('applies the threshold, max_tasks, and cuts the last output when over 100 bytes remain', () => {
    const big: WorkflowState = {
      taskOutputs: {
        clean: outputFixture('clean', { content: 'c'.repeat(300), completedAt: now }),
        extra: outputFixture('extra', { content: 'é'.repeat(200), completedAt: now - 1 }),
        helper: outputFixture('helper', { content: 'h', completedAt: now }),
      },
    };
    const context = buildSmartContext({
      currentTaskId: 'process',
      workflow,
      state: big,
      now,
      config: { maxBytes: 451 },
    });
    expect(context.tasks).toEqual([
      { taskId: 'clean', relevance: 1, bytes: 300, cut: false, masked: false },
      { taskId: 'extra', relevance: 1, bytes: 150, cut: true, masked: false },
    ]);
    expect(context.text).toContain(
      `Task: extra (relevance: 1.00)\n[Output was truncated]\n${'é'.repeat(75)}\n\n`,
    );
    expect(context.text.endsWith('=== END CONTEXT (2 tasks, 450 bytes) ===\n')).toBe(true);
    const tight = buildSmartContext({
      currentTaskId: 'process',
      workflow,
      state: big,
      now,
      config: { maxBytes: 400 },
    });
    expect(tight.tasks.map((task) => task.taskId)).toEqual(['clean']);
    const few = buildSmartContext({
      currentTaskId: 'process',
      workflow,
      state,
      now,
      config: { maxTasks: 2 },
    });
    expect(few.tasks.map((task) => task.taskId)).toEqual(['extra', 'clean']);
    const high = buildSmartContext({
      currentTaskId: 'process',
      workflow,
      state,
      now,
      config: { relevanceThreshold: 0.5 },
    });
    expect(high.tasks.map((task) => task.taskId)).toEqual(['extra', 'clean', 'helper']);
  });

  it('honours include_tasks, exclude_tasks, min_relevance and manual mode', () => {
    const ids = (currentTaskId: string) =>
      buildSmartContext({ currentTaskId, workflow, state, now }).tasks.map((task) => task.taskId);
    expect(ids('picky')).toEqual(['clean']);
    expect(ids('strict')).toEqual(['clean']);
    expect(ids('manual_task')).toEqual(['noisy', 'fetch']);
  });

  it('builds nothing when the task disables context', () => {
    expect(buildSmartContext({ currentTaskId: 'silent', workflow, state, now })).toEqual({
      text: '',
      tasks: [],
      totalBytes: 0,
      disabled: 'inject_context',
    });
    expect(buildSmartContext({ currentTaskId: 'quiet', workflow, state, now }).disabled).toBe('mode_none');
  });

  it('drops outputs outside the time window', () => {
    const context = buildSmartContext({
      currentTaskId: 'process',
      workflow,
      state,
      now,
      config: { timeWindowSecs: 1750 },
    });
    expect(context.tasks.map((task) => task.taskId)).toEqual(['extra', 'helper', 'noisy']);
  });

  it('masks all but the most recent outputs with tombstones', () => {
    const stored: WorkflowState = {
      taskOutputs: {
        ...state.taskOutputs,
        clean: outputFixture('clean', {
          content: 'cleaned 118 rows',
          originalSize: 50_000,
          filePath: '.outputs/clean.log',
          completedAt: now - 1_800_000,
        }),
      },
    };
    const context = buildSmartContext({
      currentTaskId: 'process',
      workflow,
      state: stored,
      now,
      config: { maskKeepRecent: 2 },
    });
    expect(context.tasks.filter((task) => task.masked).map((task) => task.taskId)).toEqual([
      'extra',
      'clean',
      'fetch',
    ]);
    expect(context.text).toContain(
      'Task: clean (relevance: 1.00)\n[output masked: 50000 bytes; full text at .outputs/clean.log]\n\n',
    );
    expect(context.text).toContain('Task: helper (relevance: 0.50)\nhelper notes\n\n');
  });

  it('chooses from metadata alone: the selection reads no content, and rendering it with bodies loaded matches', () => {
    const withoutBodies: WorkflowState = {
      taskOutputs: Object.fromEntries(
        Object.entries(state.taskOutputs).map(([id, output]) => [id, { ...output, content: '' }]),
      ),
    };
    for (const currentTaskId of ['process', 'picky', 'manual_task', 'strict', 'silent']) {
      const options = { currentTaskId, workflow, now, config: { maskKeepRecent: 2, maxTasks: 2 } };
      const selection = selectContext({ ...options, state: withoutBodies });
      expect(selection.candidates.length).toBeLessThanOrEqual(2);
      const loaded = {
        ...selection,
        candidates: selection.candidates.map((candidate) => ({
          ...candidate,
          output: state.taskOutputs[candidate.output.taskId] as TaskOutput,
        })),
      };
      expect(renderContext(loaded)).toEqual(buildSmartContext({ ...options, state }));
    }
    expect(selectContext({ currentTaskId: 'silent', workflow, state, now }).disabled).toBe('inject_context');
  });
});
