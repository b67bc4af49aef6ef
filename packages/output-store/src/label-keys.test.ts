import { describe, expect, it } from 'vitest';
import { InvalidOutputEventError } from './errors.js';
import { InMemoryOutputStore } from './in-memory-output-store.js';

describe('reserved label keys', () => {
  it('are refused by emit, naming the field and the key', async () => {
    const store = new InMemoryOutputStore();
    const labels = JSON.parse('{"__proto__":"x"}') as Record<string, string>;
    const emitted = store.emit({
      producer: { ownerId: 'o', runId: 'r', spawnId: 's' },
      content: { kind: 'text', text: 'x' },
      idempotencyKey: 'k',
      labels,
    });
    await expect(emitted).rejects.toSatisfy(
      (error) =>
        InvalidOutputEventError.isInstance(error) &&
        error.field === 'labels' &&
        /"__proto__"/.test(error.message),
    );
    expect(await store.count()).toBe(0);
  });
});
