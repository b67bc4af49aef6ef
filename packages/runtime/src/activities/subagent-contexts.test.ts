import { InMemoryOutputStore, type OutputStore, StorageFailureError } from '@wharf/output-store';
import type { ContextPlan } from '@wharf/swarm';
import { describe, expect, it } from 'vitest';
import { subagentContext } from './subagent-context.js';
import { SubagentContexts } from './subagent-contexts.js';

/** A store that counts the bodies read from it. */
class CountingStore extends InMemoryOutputStore {
  stats = 0;
  failNext = false;
  override async stat(...args: Parameters<OutputStore['stat']>) {
    this.stats += 1;
    if (this.failNext) {
      this.failNext = false;
      throw new StorageFailureError('disk gone');
    }
    return super.stat(...args);
  }
}

async function planOver(store: OutputStore, bodies: Record<string, string>): Promise<ContextPlan> {
  const entries = [];
  for (const [task, text] of Object.entries(bodies)) {
    const ref = await store.emit({
      producer: { ownerId: 'o', runId: 'r', spawnId: task },
      content: { kind: 'text', text },
      idempotencyKey: task,
    });
    entries.push({ taskId: task, outId: ref.outId, relevance: 1 });
  }
  return { entries, maxBytes: 10_000, maxTasks: 10 };
}

describe('SubagentContexts', () => {
  it('renders a plan once for the instances that share it, the same text as subagentContext', async () => {
    const store = new CountingStore();
    const plan = await planOver(store, { list: 'a\nb\nc\n', other: 'x' });
    const contexts = new SubagentContexts(store);
    const expected = await subagentContext(plan, store);
    store.stats = 0;
    // 32 instances start at once: one read.
    const rendered = await Promise.all(
      Array.from({ length: 32 }, () => contexts.render(structuredClone(plan))),
    );
    expect(store.stats).toBe(2);
    for (const context of rendered) expect(context).toEqual(expected);
    await contexts.render(plan);
    expect(store.stats).toBe(2);
    // Another plan (another budget) is rendered on its own.
    const smaller = await contexts.render({ ...plan, maxBytes: 3 });
    expect(store.stats).toBe(3); // the first body does not fit: the read stops there
    expect(smaller?.text).not.toEqual(expected?.text);
    expect(await contexts.render(undefined)).toBeUndefined();
  });

  it('renders again once its time is up, so an output deleted meanwhile is shown as gone', async () => {
    const store = new CountingStore();
    const plan = await planOver(store, { list: 'a\nb\n' });
    let now = 0;
    const contexts = new SubagentContexts(store, { ttlMs: 1_000, now: () => now });
    expect((await contexts.render(plan))?.text).toContain('a\nb\n');
    await store.delete({ outId: plan.entries[0]?.outId as string });
    now = 999;
    expect((await contexts.render(plan))?.text).toContain('a\nb\n');
    now = 1_000;
    expect((await contexts.render(plan))?.text).toContain('no longer available');
  });

  it('keeps no failed read: the next instance reads again', async () => {
    const store = new CountingStore();
    const plan = await planOver(store, { list: 'a\n' });
    const contexts = new SubagentContexts(store);
    store.failNext = true;
    await expect(contexts.render(plan)).rejects.toThrow('disk gone');
    expect((await contexts.render(plan))?.text).toContain('a\n');
  });

  it('keeps at most maxEntries contexts and maxBytes of text, dropping the least recently used', async () => {
    const store = new CountingStore();
    const plan = await planOver(store, { list: 'y'.repeat(1_000) });
    const contexts = new SubagentContexts(store, { maxEntries: 2, maxBytes: 1_000_000 });
    const budget = (maxBytes: number) => ({ ...plan, maxBytes });
    await contexts.render(budget(2_000));
    await contexts.render(budget(3_000));
    await contexts.render(budget(2_000)); // used again: now the most recent
    await contexts.render(budget(4_000)); // drops 3,000
    store.stats = 0;
    await contexts.render(budget(2_000));
    await contexts.render(budget(4_000));
    expect(store.stats).toBe(0);
    await contexts.render(budget(3_000));
    expect(store.stats).toBe(1);

    const small = new SubagentContexts(store, { maxBytes: 1_500 });
    await small.render(budget(2_000));
    await small.render(budget(3_000)); // the two texts together pass 1,500 bytes: the first goes
    store.stats = 0;
    await small.render(budget(3_000));
    expect(store.stats).toBe(0);
    await small.render(budget(2_000));
    expect(store.stats).toBe(1);
  });
});
