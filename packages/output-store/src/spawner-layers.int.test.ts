import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryOutputStore } from './in-memory-output-store.js';
import { createIntakeServer, type IntakeServer } from './intake/intake-server.js';
import { processSpawner } from './process-spawner.js';
import { composeLayers } from './spawner.js';
import { inputInjectLayer, sinkLayer } from './spawner-layers.js';

const clientEntry = fileURLToPath(new URL('../dist/client/index.js', import.meta.url));
const secret = 'spawner-layer-secret-with-enough-bytes-01';

const agentScript = `
const { OutputClient } = await import(process.argv[1]);
const client = new OutputClient();
const inputs = await Promise.all(client.inRefs.map((ref) => client.readInputText(ref)));
await client.emit(inputs.join('+').toUpperCase(), { name: 'joined.txt', idempotencyKey: 'joined' });
async function* parts() { for (const part of ['streamed ', 'in ', 'parts']) yield Buffer.from(part); }
await client.emit(parts(), { idempotencyKey: 'streamed', labels: { kind: 'stream' } });
try {
  await client.readInput({ outId: process.argv[2] });
  process.exit(3);
} catch (error) {
  if (error.code !== 'FORBIDDEN') process.exit(4);
}
`;

describe('inputInjectLayer + sinkLayer around a real process', () => {
  const store = new InMemoryOutputStore();
  let server: IntakeServer;

  beforeAll(async () => {
    server = await createIntakeServer({ store, secret });
  });
  afterAll(async () => {
    await server.close();
  });

  it('injects IN_REFS, URL and token, and returns the refs the process emitted', async () => {
    const producer = { ownerId: 'team', runId: 'run-1', spawnId: 'spawn-0' };
    const first = await store.emit({
      producer,
      content: { kind: 'text', text: 'alpha' },
      idempotencyKey: 'a',
    });
    const second = await store.emit({
      producer,
      content: { kind: 'text', text: 'beta' },
      idempotencyKey: 'b',
    });
    const hidden = await store.emit({
      producer,
      content: { kind: 'text', text: 'not for you' },
      idempotencyKey: 'c',
    });
    const spawner = composeLayers(
      sinkLayer({ store }),
      inputInjectLayer({ intakeUrl: server.url, secret }),
    )(processSpawner());
    const result = await spawner.spawn({
      producer: { ownerId: 'team', runId: 'run-1', spawnId: 'spawn-1', agent: 'joiner' },
      inRefs: [first, second],
      command: [process.execPath, '--input-type=module', '-e', agentScript, clientEntry, hidden.outId],
    });
    expect(result.exitCode).toBe(0);
    expect(result.outputs).toHaveLength(2);
    const [joined, streamed] = await Promise.all((result.outputs ?? []).map((ref) => store.get(ref)));
    expect(Buffer.from(joined?.body ?? []).toString()).toBe('ALPHA+BETA');
    expect(joined?.record).toMatchObject({
      name: 'joined.txt',
      producer: { spawnId: 'spawn-1', agent: 'joiner' },
    });
    expect(Buffer.from(streamed?.body ?? []).toString()).toBe('streamed in parts');
    expect(streamed?.record.labels).toEqual({ kind: 'stream' });
  });
});
