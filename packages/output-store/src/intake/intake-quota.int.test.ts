import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { InMemoryOutputStore } from '../in-memory-output-store.js';
import type { SpawnTokenClaims } from '../schemas.js';
import { issueSpawnToken } from '../spawn-token.js';
import { SqliteOutputStore } from '../sqlite/sqlite-output-store.js';
import type { OutputStore } from '../types.js';
import { createIntakeServer, type IntakeServer } from './intake-server.js';

const secret = 'intake-quota-secret-with-enough-bytes-01';
const claims: SpawnTokenClaims = {
  v: 1,
  ownerId: 'owner-q',
  runId: 'run-q',
  spawnId: 'spawn-q',
  readRefs: [],
  expiresAt: Date.now() + 3_600_000,
  maxOutputs: 5,
  maxOutputBytes: 1 << 20,
};
const producer = { ownerId: claims.ownerId, runId: claims.runId, spawnId: claims.spawnId };

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(store: OutputStore): Promise<IntakeServer> {
  // The quota is raced by 50 uploads of one spawn at once: the upload caps must let them in.
  const caps = { maxUploadsPerSpawn: 64, maxUploadsPerRun: 64 };
  const server = await createIntakeServer({ store, secret, maxConcurrentRequests: 64, ...caps });
  cleanups.push(() => server.close());
  return server;
}

const stores: [string, () => Promise<OutputStore>][] = [
  [
    'in memory',
    async () => {
      const store = new InMemoryOutputStore();
      cleanups.push(() => store.close());
      return store;
    },
  ],
  [
    'on SQLite',
    async () => {
      const directory = await mkdtemp(join(tmpdir(), 'wharf-intake-quota-'));
      const store = new SqliteOutputStore({ path: join(directory, 'outputs.db') });
      cleanups.push(() => rm(directory, { recursive: true, force: true }));
      cleanups.push(() => store.close());
      return store;
    },
  ],
];

/**
 * The store, with `count` calls observed: `counted` settles once the intake has counted the
 * spawn's outputs `times` times, that is once every request has passed its quota check.
 */
function observeCounts(store: OutputStore, times: number): { store: OutputStore; counted: Promise<void> } {
  let calls = 0;
  let reached!: () => void;
  const counted = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const observed = new Proxy(store, {
    get(target, property) {
      if (property === 'count') {
        return async (query: Parameters<OutputStore['count']>[0]) => {
          const result = await target.count(query);
          calls += 1;
          if (calls === times) reached();
          return result;
        };
      }
      const value = Reflect.get(target, property, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { store: observed, counted };
}

describe.each(stores)('spawn output quota %s', (_name, open) => {
  it('stores exactly maxOutputs of 50 concurrent requests and refuses the rest with 403', async () => {
    const { store, counted } = observeCounts(await open(), 50);
    const server = await serve(store);
    const authorization = `Bearer ${issueSpawnToken(claims, secret)}`;
    // Every body stays unfinished until all 50 requests have been through the quota check.
    const body = (index: number) => {
      let step = 0;
      return new ReadableStream<Uint8Array>({
        async pull(controller) {
          step += 1;
          if (step === 1) controller.enqueue(Buffer.from(`output ${index}, `));
          else if (step === 2) {
            await counted;
            controller.enqueue(Buffer.from('finished'));
          } else controller.close();
        },
      });
    };
    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        fetch(`${server.url}/v1/outputs`, {
          method: 'POST',
          body: body(index),
          duplex: 'half',
          headers: { authorization, 'idempotency-key': `race-${index}` },
        } as RequestInit),
      ),
    );
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(5);
    expect(statuses.filter((status) => status === 403)).toHaveLength(45);
    const refused = responses.find((response) => response.status === 403);
    expect(await refused?.json()).toMatchObject({
      error: { code: 'FORBIDDEN', message: expect.stringMatching(/at most 5 outputs/) },
    });
    expect(await store.count(producer)).toBe(5);
  });

  it('gives a failed upload its slot back and still answers retries of stored outputs', async () => {
    const store = await open();
    const server = await serve(store);
    const authorization = `Bearer ${issueSpawnToken({ ...claims, maxOutputs: 1, maxOutputBytes: 4096 }, secret)}`;
    const chunks = [Buffer.alloc(3000, 1), Buffer.alloc(3000, 2)];
    const oversize = await fetch(`${server.url}/v1/outputs`, {
      method: 'POST',
      headers: { authorization, 'idempotency-key': 'too-big' },
      body: new ReadableStream({
        pull(controller) {
          const next = chunks.shift();
          if (next) controller.enqueue(next);
          else controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(oversize.status).toBe(413);
    const post = (key: string, body: string) =>
      fetch(`${server.url}/v1/outputs`, {
        method: 'POST',
        body,
        headers: { authorization, 'idempotency-key': key },
      });
    expect((await post('kept', 'the one output')).status).toBe(201);
    expect((await post('second', 'over quota')).status).toBe(403);
    expect((await post('kept', 'the one output')).status).toBe(200);
    expect(await store.count(producer)).toBe(1);
  });
});
