import { InMemoryOutputStore } from '@wharf/output-store';
import { describe, expect, it } from 'vitest';
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
          { taskId: 'fetch', outId: ids.fetch as string, relevance: 1, masked: false, completedAt: 1 },
          { taskId: 'lint', outId: ids.lint as string, relevance: 0.3, masked: false, completedAt: 2 },
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
    // Read cut at 1,000 bytes (1,001 would split an 'é'); lint's 7 bytes no longer fit.
    expect(context?.tasks).toEqual([
      { taskId: 'fetch', relevance: 1, bytes: 1_000, cut: false, masked: false },
    ]);
  });

  it('shows masked outputs as tombstones with their size and out id, and missing ones as gone', async () => {
    const { store, ids } = await storeWith({ old: 'x'.repeat(4_096), fresh: 'fresh rows' });
    await store.delete({ outId: ids.fresh as string });
    const context = await subagentContext(
      {
        entries: [
          { taskId: 'old', outId: ids.old as string, relevance: 1, masked: true, completedAt: 1 },
          { taskId: 'fresh', outId: ids.fresh as string, relevance: 1, masked: false, completedAt: 2 },
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
});
