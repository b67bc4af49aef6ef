import { describe, expect, it } from 'vitest';
import { createEmitHandler, emitToolDefinition } from './emit-tool.js';
import { InMemoryOutputStore } from './in-memory-output-store.js';

const producer = { ownerId: 'o', runId: 'r', spawnId: 's' };

describe('EMIT tool', () => {
  it('publishes a plain JSON schema requiring the content', () => {
    expect(emitToolDefinition.name).toBe('emit');
    expect(emitToolDefinition.inputJsonSchema).toMatchObject({
      type: 'object',
      required: ['content'],
      properties: { content: { type: 'string' }, name: { type: 'string' } },
    });
  });

  it('stores the body, returns only the ref and size, and is idempotent per body', async () => {
    const store = new InMemoryOutputStore();
    const handler = createEmitHandler({ store, producer, keyPrefix: 'wf/act' });
    const first = await handler({ content: 'hello', labels: { step: '1' } });
    const retried = await handler({ content: 'hello', labels: { step: '1' } });
    expect(first).toEqual(retried);
    expect(first.sizeBytes).toBe(5);
    expect((await store.stat({ outId: first.outId })).labels).toEqual({ step: '1' });
    expect((await store.list()).records).toHaveLength(1);
  });

  it("adds fixed labels over the call's, a default content type, keys per call, and reports each output", async () => {
    const store = new InMemoryOutputStore();
    const seen: string[] = [];
    const handler = createEmitHandler({
      store,
      producer,
      keyPrefix: 'wf/act',
      idempotencyKey: (_input, index) => `wf/act/attempt-1/${index}`,
      labels: { task: 'report' },
      contentType: 'text/plain',
      onEmit: (ref, result) => seen.push(`${ref.outId}:${result.sizeBytes}`),
    });
    const first = await handler({ content: 'same', labels: { task: 'mine', step: '1' } });
    const second = await handler({ content: 'same', contentType: 'text/markdown' });
    expect(second.outId).not.toBe(first.outId);
    expect(await store.stat({ outId: first.outId })).toMatchObject({
      labels: { task: 'report', step: '1' },
      contentType: 'text/plain',
    });
    expect((await store.stat({ outId: second.outId })).contentType).toBe('text/markdown');
    expect(seen).toEqual([`${first.outId}:4`, `${second.outId}:4`]);
  });

  it('rejects a call without content', async () => {
    const handler = createEmitHandler({ store: new InMemoryOutputStore(), producer, keyPrefix: 'k' });
    await expect(handler({ name: 'x' })).rejects.toThrow(/content/);
  });
});
