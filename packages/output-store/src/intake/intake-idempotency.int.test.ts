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

const secret = 'intake-idempotency-secret-with-enough-bytes';
const spawnA: SpawnTokenClaims = {
  v: 1,
  ownerId: 'owner-a',
  runId: 'run-1',
  spawnId: 'spawn-a',
  readRefs: [],
  expiresAt: Date.now() + 3_600_000,
  maxOutputs: 100,
  maxOutputBytes: 1 << 20,
};
const spawnB: SpawnTokenClaims = { ...spawnA, spawnId: 'spawn-b' };
const otherRun: SpawnTokenClaims = { ...spawnA, runId: 'run-2' };

type Created = {
  ref: { outId: string };
  record: { outId: string; producer: { spawnId: string; runId: string } };
};

const stores: [string, (directory: string) => OutputStore][] = [
  ['InMemoryOutputStore', () => new InMemoryOutputStore()],
  ['SqliteOutputStore', (directory) => new SqliteOutputStore({ path: join(directory, 'outputs.db') })],
  [
    'SqliteOutputStore with its writer thread',
    (directory) => new SqliteOutputStore({ path: join(directory, 'outputs.db'), writerThread: true }),
  ],
];

describe.each(stores)('intake idempotency keys over HTTP (%s)', (_name, makeStore) => {
  let directory: string;
  let store: OutputStore;
  let server: IntakeServer;

  afterEach(async () => {
    await server.close();
    await store.close();
    await rm(directory, { recursive: true, force: true });
  });

  async function post(claims: SpawnTokenClaims, key: string, body: string) {
    const response = await fetch(`${server.url}/v1/outputs`, {
      method: 'POST',
      body,
      headers: {
        authorization: `Bearer ${issueSpawnToken(claims, secret)}`,
        'idempotency-key': key,
        'content-type': 'text/plain',
      },
    });
    return { status: response.status, text: await response.text() };
  }

  it("gives another spawn reusing a key its own output and never names or returns the first spawn's", async () => {
    directory = await mkdtemp(join(tmpdir(), 'wharf-intake-idempotency-'));
    store = makeStore(directory);
    server = await createIntakeServer({ store, secret });

    const first = await post(spawnA, 'step/0', 'same bytes');
    const clash = await post(spawnA, 'step/1', 'a body');
    expect([first.status, clash.status]).toEqual([201, 201]);
    const idA = (JSON.parse(first.text) as Created).ref.outId;
    const idA1 = (JSON.parse(clash.text) as Created).ref.outId;

    for (const claims of [spawnB, otherRun]) {
      const label = `${claims.runId}/${claims.spawnId}`;
      const same = await post(claims, 'step/0', 'same bytes');
      const changed = await post(claims, 'step/1', 'another body');
      for (const response of [same, changed]) {
        expect(response.status, label).toBe(201);
        expect(response.text, label).not.toContain(idA);
        expect(response.text, label).not.toContain(idA1);
      }
      const own = JSON.parse(same.text) as Created;
      expect(own.record.producer, label).toMatchObject({ runId: claims.runId, spawnId: claims.spawnId });
      const retry = await post(claims, 'step/0', 'same bytes');
      expect(retry.status, label).toBe(200);
      expect((JSON.parse(retry.text) as Created).ref, label).toEqual(own.ref);
      const conflict = await post(claims, 'step/0', 'a third body');
      expect(conflict.status, label).toBe(409);
      expect(conflict.text, label).toContain(own.ref.outId);
      expect(conflict.text, label).not.toContain(idA);
      const auth = { authorization: `Bearer ${issueSpawnToken(claims, secret)}` };
      expect((await fetch(`${server.url}/v1/outputs/${own.ref.outId}`, { headers: auth })).status).toBe(200);
      expect((await fetch(`${server.url}/v1/outputs/${idA}`, { headers: auth })).status).toBe(403);
    }
    const authA = { authorization: `Bearer ${issueSpawnToken(spawnA, secret)}` };
    const bodyA = await fetch(`${server.url}/v1/outputs/${idA}/body`, { headers: authA });
    expect(await bodyA.text()).toBe('same bytes');
    expect(await store.count({ ownerId: 'owner-a' })).toBe(6);
  });
});
