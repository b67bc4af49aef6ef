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

  it('rejects a call without content', async () => {
    const handler = createEmitHandler({ store: new InMemoryOutputStore(), producer, keyPrefix: 'k' });
    await expect(handler({ name: 'x' })).rejects.toThrow(/content/);
  });
});
