import { InMemoryOutputStore, type OutputStore, StorageFailureError } from '@wharf/output-store';
import { describe, expect, it } from 'vitest';
import { renderContext } from './render-context.js';
import { subagentContext } from './subagent-context.js';

async function storeWith(
  bodies: Record<string, string>,
): Promise<{ store: InMemoryOutputStore; ids: Record<string, string> }> {
  const store = new InMemoryOutputStore();
  const ids: Record<string, string> = {};
  for (const [task, text] of Object.entries(bodies)) {
    const ref = await store.emit({
      producer: { ownerId: 'o', runId: 'r', spawnId: task },
      content: { kind: 'text', text },
      idempotencyKey: task,
    });
    ids[task] = ref.outId;
  }
  return { store, ids };
}

describe('subagentContext', () => {
  it('reads only what the context shows: a big body is cut on a character boundary', async () => {
    const { store, ids } = await storeWith({ fetch: 'é'.repeat(5_000), lint: 'lint ok' });
    const context = await subagentContext(
      {
        entries: [
          { taskId: 'fetch', outId: ids.fetch as string, relevance: 1 },
          { taskId: 'lint', outId: ids.lint as string, relevance: 0.3 },
        ],
        maxBytes: 1_001,
        maxTasks: 10,
      },
      store,
    );
    expect(
      context?.text.startsWith(
        '=== RELEVANT CONTEXT ===\n\nTask: fetch (relevance: 1.00)\n[Output was truncated]\n',
      ),
    ).toBe(true);
    expect(context?.text).toContain(`${'é'.repeat(500)}\n\n=== END CONTEXT (1 tasks, 1000 bytes) ===\n`);
    expect(context?.text).not.toContain('\uFFFD');
    // Cut at 1,000 bytes (1,001 would split an 'é'); lint's 7 bytes no longer fit.
    expect(context?.tasks).toEqual([
      { taskId: 'fetch', relevance: 1, bytes: 1_000, cut: true, masked: false },
    ]);
  });

  it('names the loops it shows only some outputs of, and their manifests, after the outputs', async () => {
    const { store, ids } = await storeWith({ 'fan#4999': 'last item done' });
    const context = await subagentContext(
      {
        entries: [{ taskId: 'fan#4999', outId: ids['fan#4999'] as string, relevance: 1 }],
        maxBytes: 100_000,
        maxTasks: 10,
        loops: [
          { task: 'fan', shown: 1, total: 5_000, manifest: 'out_m' },
          { task: 'scan', shown: 0, total: 12 },
        ],
      },
      store,
    );
    expect(context?.text).toBe(
      [
        '=== RELEVANT CONTEXT ===\n\n',
        'Task: fan#4999 (relevance: 1.00)\nlast item done\n\n',
        'Loop fan: 1 of 5000 outputs shown; all 5000 are listed in manifest out_m (agents: read_input; scripts: wharf outputs refs out_m)\n\n',
        'Loop scan: 0 of 12 outputs shown (the loop is still running: its manifest is written when it ends)\n\n',
        '=== END CONTEXT (1 tasks, 14 bytes) ===\n',
      ].join(''),
    );
    // A plan of loops alone (a loop reused whole pooled nothing) still gives a context.
    const alone = await subagentContext(
      {
        entries: [],
        maxBytes: 100,
        maxTasks: 10,
        loops: [{ task: 'fan', shown: 0, total: 9, manifest: 'out_m' }],
      },
      store,
    );
    expect(alone?.text).toContain('Loop fan: 0 of 9 outputs shown; all 9 are listed in manifest out_m');
    expect(alone?.tasks).toEqual([]);
  });

  it('shows masked outputs as tombstones with their size and out id, and missing ones as gone', async () => {
    const { store, ids } = await storeWith({ old: 'x'.repeat(4_096), fresh: 'fresh rows' });
    await store.delete({ outId: ids.fresh as string });
    const context = await subagentContext(
      {
        entries: [
          { taskId: 'old', outId: ids.old as string, relevance: 1, masked: true },
          { taskId: 'fresh', outId: ids.fresh as string, relevance: 1 },
        ],
        maxBytes: 100_000,
        maxTasks: 10,
      },
      store,
    );
    expect(context?.text).toContain(
      `Task: old (relevance: 1.00)\n[output masked: 4096 bytes; full text at ${ids.old}]\n`,
    );
    expect(context?.text).toMatch(
      new RegExp(`Task: fresh \\(relevance: 1.00\\)\\n\\[output ${ids.fresh} no longer available: .*deleted`),
    );
    expect(await subagentContext(undefined, store)).toBeUndefined();
  });

  it('renders what renderContext would render from the whole bodies, reading about maxBytes', async () => {
    const texts: Record<string, string> = {
      a: 'a'.repeat(3_000),
      b: 'ü'.repeat(700),
      c: '😀'.repeat(90),
      d: 'short',
      e: '',
      f: 'x'.repeat(50_000),
    };
    const { store, ids } = await storeWith(texts);
    let read = 0;
    const counting = {
      stat: (ref: { outId: string }) => store.stat(ref),
      list: (query: Parameters<OutputStore['list']>[0]) => store.list(query),
      openBody: async (...args: Parameters<OutputStore['openBody']>) => {
        const body = await store.openBody(...args);
        read += body.end - body.start;
        return body;
      },
    } as unknown as OutputStore;
    const order = ['d', 'c', 'a', 'e', 'b', 'f'];
    for (const maxBytes of [0, 50, 101, 360, 1_000, 3_007, 3_500, 5_000, 200_000]) {
      for (const maskedTask of [undefined, 'a']) {
        const entries = order.map((task, index) => ({
          taskId: task,
          outId: ids[task] as string,
          relevance: 1 - index / 10,
          ...(task === maskedTask ? { masked: true as const } : {}),
        }));
        read = 0;
        const ours = await subagentContext({ entries, maxBytes, maxTasks: 5 }, counting);
        const reference = renderContext({
          maxBytes,
          maxTasks: 5,
          entries: entries.map((entry) => ({
            taskId: entry.taskId,
            outId: entry.outId,
            relevance: entry.relevance,
            masked: entry.masked === true,
            content: texts[entry.taskId] as string,
            sizeBytes: Buffer.byteLength(texts[entry.taskId] as string),
            truncated: false,
          })),
        });
        expect({ maxBytes, maskedTask, ...ours }).toEqual({ maxBytes, maskedTask, ...reference });
        expect(read).toBeLessThanOrEqual(maxBytes + 8 * entries.length);
      }
    }
  });

  it('shows a masked output that is gone as gone, and lets other store errors through', async () => {
    const { store, ids } = await storeWith({ old: 'old rows' });
    await store.delete({ outId: ids.old as string });
    const gone = await subagentContext(
      {
        entries: [{ taskId: 'old', outId: ids.old as string, relevance: 1, masked: true }],
        maxBytes: 1_000,
        maxTasks: 10,
      },
      store,
    );
    expect(gone?.text).toContain(`[output ${ids.old} no longer available`);
    expect(gone?.text).not.toContain('output masked');

    const failing = {
      stat: async () => {
        throw new StorageFailureError('disk unreadable');
      },
    } as unknown as OutputStore;
    await expect(
      subagentContext(
        { entries: [{ taskId: 'old', outId: 'out_any', relevance: 1 }], maxBytes: 1_000, maxTasks: 10 },
        failing,
      ),
    ).rejects.toThrow('disk unreadable');
  });
});

describe('subagentContext with stored summaries (truncation_strategy: summary)', () => {
  async function withSummary(summaryText: string) {
    const store = new InMemoryOutputStore();
    const producer = { ownerId: 'o', runId: 'r', spawnId: 'build' };
    const big = await store.emit({
      producer,
      content: { kind: 'text', text: 'line\n'.repeat(2_000) },
      idempotencyKey: 'stdout',
      labels: { stream: 'stdout' },
    });
    await store.emit({
      producer,
      content: { kind: 'text', text: summaryText },
      idempotencyKey: 'summary',
      labels: { stream: 'summary' },
    });
    // Another subagent's summary must not be taken for this one.
    await store.emit({
      producer: { ...producer, spawnId: 'other' },
      content: { kind: 'text', text: 'not this one' },
      idempotencyKey: 'other-summary',
      labels: { stream: 'summary' },
    });
    return { store, outId: big.outId };
  }

  it('shows the summary instead of a cut body when it fits', async () => {
    const { store, outId } = await withSummary(
      '--- Output Summary (10000 bytes) ---\n2,000 lines, all "line".',
    );
    const context = await subagentContext(
      { entries: [{ taskId: 'build', outId, relevance: 1 }], maxBytes: 500, maxTasks: 10 },
      store,
    );
    expect(context?.text).toContain(
      'Task: build (relevance: 1.00)\n--- Output Summary (10000 bytes) ---\n2,000 lines',
    );
    expect(context?.text).not.toContain('line\nline\n');
    expect(context?.text).not.toContain('not this one');
  });

  it('cuts the body as usual when the summary does not fit either', async () => {
    const { store, outId } = await withSummary('s'.repeat(600));
    const context = await subagentContext(
      { entries: [{ taskId: 'build', outId, relevance: 1 }], maxBytes: 500, maxTasks: 10 },
      store,
    );
    expect(context?.text).toContain('[Output was truncated]');
    expect(context?.text).toContain('line\nline\n');
  });
});
