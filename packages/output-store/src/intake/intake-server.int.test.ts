import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryOutputStore } from '../in-memory-output-store.js';
import type { SpawnTokenClaims } from '../schemas.js';
import { issueSpawnToken } from '../spawn-token.js';
import { SqliteOutputStore } from '../sqlite/sqlite-output-store.js';
import type { OutputStore } from '../types.js';
import { createIntakeServer, type IntakeServer } from './intake-server.js';

const secret = 'intake-test-secret-with-enough-bytes-0001';
const base: SpawnTokenClaims = {
  v: 1,
  ownerId: 'owner-a',
  runId: 'run-1',
  spawnId: 'spawn-1',
  agent: 'writer',
  readRefs: [],
  expiresAt: Date.now() + 3_600_000,
  maxOutputs: 100,
  maxOutputBytes: 4096,
};
const token = (overrides: Partial<SpawnTokenClaims> = {}) =>
  issueSpawnToken({ ...base, ...overrides }, secret);

// The in-memory store takes the intake's lookup-emit-stat path, SQLite its count-and-insert one.
const stores: [string, (directory: string) => OutputStore][] = [
  ['InMemoryOutputStore', () => new InMemoryOutputStore()],
  ['SqliteOutputStore', (directory) => new SqliteOutputStore({ path: join(directory, 'outputs.db') })],
];

describe.each(stores)('intake server over HTTP (%s)', (_name, makeStore) => {
  let directory: string;
  let store: OutputStore;
  let server: IntakeServer;
  let clockOffsetMs = 0;

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'wharf-intake-http-'));
    store = makeStore(directory);
    server = await createIntakeServer({
      store,
      secret,
      maxBodyBytes: 1 << 20,
      now: () => Date.now() + clockOffsetMs,
    });
  });
  afterAll(async () => {
    await server.close();
    await store.close();
    await rm(directory, { recursive: true, force: true });
  });

  async function post(body: string | Uint8Array, headers: Record<string, string>, bearer = token()) {
    return fetch(`${server.url}/v1/outputs`, {
      method: 'POST',
      body,
      headers: { authorization: `Bearer ${bearer}`, ...headers },
    });
  }
  async function errorOf(response: Response) {
    return ((await response.json()) as { error: Record<string, unknown> }).error;
  }

  it('answers health checks without a token', async () => {
    const response = await fetch(`${server.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ok' });
  });

  it('stores a raw body with metadata headers and serves record, body and ranges', async () => {
    const response = await post('0123456789', {
      'content-type': 'text/markdown',
      'idempotency-key': 'raw-1',
      'x-wharf-name': encodeURIComponent('résumé.md'),
      'x-wharf-labels': 'step=draft&lang=en',
    });
    expect(response.status).toBe(201);
    const { ref, record } = (await response.json()) as {
      ref: { outId: string };
      record: Record<string, unknown>;
    };
    expect(record).toMatchObject({
      name: 'résumé.md',
      contentType: 'text/markdown',
      sizeBytes: 10,
      labels: { step: 'draft', lang: 'en' },
    });
    expect(record.producer).toEqual({
      ownerId: 'owner-a',
      runId: 'run-1',
      spawnId: 'spawn-1',
      agent: 'writer',
    });
    const auth = { authorization: `Bearer ${token()}` };
    expect(await (await fetch(`${server.url}/v1/outputs/${ref.outId}`, { headers: auth })).json()).toEqual(
      record,
    );
    const full = await fetch(`${server.url}/v1/outputs/${ref.outId}/body`, { headers: auth });
    expect(full.status).toBe(200);
    expect(full.headers.get('content-type')).toBe('text/markdown');
    expect(await full.text()).toBe('0123456789');
    const part = await fetch(`${server.url}/v1/outputs/${ref.outId}/body`, {
      headers: { ...auth, range: 'bytes=2-4' },
    });
    expect(part.status).toBe(206);
    expect(part.headers.get('content-range')).toBe('bytes 2-4/10');
    expect(await part.text()).toBe('234');
    const tail = await fetch(`${server.url}/v1/outputs/${ref.outId}/body`, {
      headers: { ...auth, range: 'bytes=-3' },
    });
    expect(await tail.text()).toBe('789');
    const beyond = await fetch(`${server.url}/v1/outputs/${ref.outId}/body`, {
      headers: { ...auth, range: 'bytes=10-' },
    });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-range')).toBe('bytes */10');
  });

  it('returns the same ref for a retry (200) and 409 for a different body under the same key', async () => {
    const first = await post('retry me', { 'idempotency-key': 'retry-1' });
    const second = await post('retry me', { 'idempotency-key': 'retry-1' });
    expect([first.status, second.status]).toEqual([201, 200]);
    expect(((await second.json()) as { ref: unknown }).ref).toEqual(
      ((await first.json()) as { ref: unknown }).ref,
    );
    const conflict = await post('something else', { 'idempotency-key': 'retry-1' });
    expect(conflict.status).toBe(409);
    expect(await errorOf(conflict)).toMatchObject({ code: 'IDEMPOTENCY_CONFLICT' });
  });

  it('stores an application/json raw body as is, not as an envelope', async () => {
    const response = await post('{"kind":"text","raw":true}', {
      'content-type': 'application/json',
      'idempotency-key': 'raw-json',
    });
    expect(response.status).toBe(201);
    const { record } = (await response.json()) as { record: { contentType: string; sizeBytes: number } };
    expect(record).toMatchObject({ contentType: 'application/json', sizeBytes: 26 });
  });

  it('accepts small JSON submissions of text, JSON values and base64 bytes', async () => {
    const send = (content: unknown, key: string) =>
      post(JSON.stringify({ idempotencyKey: key, content, labels: { via: 'json' } }), {
        'content-type': 'application/vnd.wharf.output+json',
      });
    const text = await send({ kind: 'text', text: 'hi' }, 'json-text');
    const value = await send({ kind: 'json', value: { a: 1 } }, 'json-value');
    const bytes = await send(
      { kind: 'bytes', base64: Buffer.from([1, 2, 3]).toString('base64') },
      'json-bytes',
    );
    expect([text.status, value.status, bytes.status]).toEqual([201, 201, 201]);
    const record = ((await bytes.json()) as { record: { sizeBytes: number; contentType: string } }).record;
    expect(record).toMatchObject({ sizeBytes: 3, contentType: 'application/octet-stream' });
  });

  it('answers 401 for a missing, forged, foreign or expired token', async () => {
    const missing = await fetch(`${server.url}/v1/outputs`, {
      method: 'POST',
      body: 'x',
      headers: { 'idempotency-key': 'k' },
    });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer');
    const foreign = issueSpawnToken(base, 'some-other-secret-that-is-long-enough-42');
    expect((await post('x', { 'idempotency-key': 'k' }, foreign)).status).toBe(401);
    expect((await post('x', { 'idempotency-key': 'k' }, `${token()}x`)).status).toBe(401);
    const expired = await post('x', { 'idempotency-key': 'k' }, token({ expiresAt: Date.now() - 1 }));
    expect(expired.status).toBe(401);
    expect(await errorOf(expired)).toMatchObject({
      code: 'UNAUTHORIZED',
      message: expect.stringMatching(/expired/),
    });
    expect(await store.findByIdempotencyKey(base, 'k')).toBeUndefined();
  });

  it('refuses a token it has verified before once the token expires', async () => {
    const shortLived = token({ spawnId: 'short-lived', expiresAt: Date.now() + 60_000 });
    const first = await post('x', { 'idempotency-key': 'before-expiry' }, shortLived);
    expect(first.status).toBe(201);
    clockOffsetMs = 60_000;
    try {
      const late = await post('y', { 'idempotency-key': 'after-expiry' }, shortLived);
      expect(late.status).toBe(401);
      expect(await errorOf(late)).toMatchObject({ message: expect.stringMatching(/expired/) });
    } finally {
      clockOffsetMs = 0;
    }
  });

  it("answers 403 for another owner's output and for refs outside the spawn's inputs", async () => {
    const created = (await (await post('private', { 'idempotency-key': 'private-1' })).json()) as {
      ref: { outId: string };
    };
    const id = created.ref.outId;
    const stranger = { authorization: `Bearer ${token({ ownerId: 'owner-b', readRefs: [id] })}` };
    const strangerResponse = await fetch(`${server.url}/v1/outputs/${id}/body`, { headers: stranger });
    expect(strangerResponse.status).toBe(403);
    expect(await errorOf(strangerResponse)).toMatchObject({
      code: 'FORBIDDEN',
      message: expect.stringMatching(/another owner/),
    });
    const sibling = { authorization: `Bearer ${token({ spawnId: 'spawn-2' })}` };
    expect((await fetch(`${server.url}/v1/outputs/${id}`, { headers: sibling })).status).toBe(403);
    const consumer = { authorization: `Bearer ${token({ spawnId: 'spawn-2', readRefs: [id] })}` };
    expect(await (await fetch(`${server.url}/v1/outputs/${id}/body`, { headers: consumer })).text()).toBe(
      'private',
    );
  });

  it('lets a readRun token read every output of its own run and nothing of another run', async () => {
    const created = (await (await post('sibling', { 'idempotency-key': 'sibling-1' })).json()) as {
      ref: { outId: string };
    };
    const id = created.ref.outId;
    const join = { authorization: `Bearer ${token({ spawnId: 'join', readRun: true })}` };
    expect(await (await fetch(`${server.url}/v1/outputs/${id}/body`, { headers: join })).text()).toBe(
      'sibling',
    );
    const otherRun = { authorization: `Bearer ${token({ runId: 'run-2', spawnId: 'join', readRun: true })}` };
    expect((await fetch(`${server.url}/v1/outputs/${id}`, { headers: otherRun })).status).toBe(403);
    const otherOwner = {
      authorization: `Bearer ${token({ ownerId: 'owner-b', spawnId: 'join', readRun: true })}`,
    };
    expect((await fetch(`${server.url}/v1/outputs/${id}`, { headers: otherOwner })).status).toBe(403);
  });

  it("lets a re-run's readRun token read the outputs of the runs it names in readRuns, and no other run's", async () => {
    const created = (await (await post('reused', { 'idempotency-key': 'reused-1' })).json()) as {
      ref: { outId: string };
    };
    const id = created.ref.outId;
    const rerun = (readRuns: string[]) => ({
      authorization: `Bearer ${token({ runId: 'run-9', spawnId: 'join', readRun: true, readRuns })}`,
    });
    expect(
      await (await fetch(`${server.url}/v1/outputs/${id}/body`, { headers: rerun(['run-1']) })).text(),
    ).toBe('reused');
    expect((await fetch(`${server.url}/v1/outputs/${id}`, { headers: rerun(['run-3']) })).status).toBe(403);
    const listedOnly = {
      authorization: `Bearer ${token({ runId: 'run-9', spawnId: 'join', readRuns: ['run-1'] })}`,
    };
    expect((await fetch(`${server.url}/v1/outputs/${id}`, { headers: listedOnly })).status).toBe(403);
  });

  it('answers 413 naming the limit for declared and streamed oversize bodies and stores nothing', async () => {
    const declared = await post('y'.repeat(5000), { 'idempotency-key': 'big-declared' });
    expect(declared.status).toBe(413);
    expect(await errorOf(declared)).toMatchObject({
      code: 'TOO_LARGE',
      limitBytes: 4096,
      message: expect.stringMatching(/4096 bytes/),
    });
    const chunks = [Buffer.alloc(3000, 1), Buffer.alloc(3000, 2)];
    const streamed = await fetch(`${server.url}/v1/outputs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token()}`, 'idempotency-key': 'big-streamed' },
      body: new ReadableStream({
        pull(controller) {
          const next = chunks.shift();
          if (next) controller.enqueue(next);
          else controller.close();
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(await errorOf(streamed)).toMatchObject({ limitBytes: 4096 });
    expect(await store.findByIdempotencyKey(base, 'big-declared')).toBeUndefined();
    expect(await store.findByIdempotencyKey(base, 'big-streamed')).toBeUndefined();
  });

  it('answers 400 naming the field for malformed metadata', async () => {
    const cases: [Promise<Response>, string][] = [
      [post('x', {}), 'Idempotency-Key'],
      [post('x', { 'idempotency-key': 'k', 'x-wharf-ttl-ms': 'soon' }), 'X-Wharf-Ttl-Ms'],
      [post('x', { 'idempotency-key': 'k', 'x-wharf-name': '%E0%A4%A' }), 'X-Wharf-Name'],
      [post('x', { 'idempotency-key': 'k', 'content-type': 'nonsense' }), 'contentType'],
      [post('{not json', { 'content-type': 'application/vnd.wharf.output+json' }), 'body'],
      [
        post(JSON.stringify({ idempotencyKey: 'k', content: { kind: 'file', path: '/etc/passwd' } }), {
          'content-type': 'application/vnd.wharf.output+json',
        }),
        'content.kind',
      ],
      [
        post(JSON.stringify({ content: { kind: 'text', text: 'x' } }), {
          'content-type': 'application/vnd.wharf.output+json',
        }),
        'idempotencyKey',
      ],
      [
        fetch(`${server.url}/v1/outputs/not-an-id`, { headers: { authorization: `Bearer ${token()}` } }),
        'id',
      ],
    ];
    for (const [request, field] of cases) {
      const response = await request;
      expect(response.status, field).toBe(400);
      expect(await errorOf(response), field).toMatchObject({ code: 'INVALID_EVENT', field });
    }
    expect(await store.findByIdempotencyKey(base, 'k')).toBeUndefined();
  });

  it('answers 400 naming the nesting limit for a deeply nested envelope and stores the deepest allowed', async () => {
    const envelope = (key: string, depth: number) =>
      `{"idempotencyKey":"${key}","content":{"kind":"json","value":${'['.repeat(depth)}${']'.repeat(depth)}}}`;
    const headers = { 'content-type': 'application/vnd.wharf.output+json' };
    const deep = await post(envelope('deep', 5000), headers, token({ maxOutputBytes: 1 << 16 }));
    expect(deep.status).toBe(400);
    expect(await errorOf(deep)).toMatchObject({
      code: 'INVALID_EVENT',
      field: 'body',
      message: expect.stringMatching(/deeper than the limit of 128 levels/),
    });
    // The envelope and `content` are two levels, so the value may nest 126 deep.
    expect((await post(envelope('deepest', 126), headers)).status).toBe(201);
    expect((await post(envelope('too-deep', 127), headers)).status).toBe(400);
    expect(await store.findByIdempotencyKey(base, 'deep')).toBeUndefined();
    expect(await store.findByIdempotencyKey(base, 'too-deep')).toBeUndefined();
  });

  it('answers 400 naming the field for reserved label keys instead of dropping them', async () => {
    const headers = { 'content-type': 'application/vnd.wharf.output+json' };
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      const envelope = `{"idempotencyKey":"label-${key}","labels":{"ok":"1","${key}":"x"},"content":{"kind":"text","text":"x"}}`;
      const response = await post(envelope, headers);
      expect(response.status, key).toBe(400);
      expect(await errorOf(response), key).toMatchObject({
        code: 'INVALID_EVENT',
        field: 'labels',
        message: expect.stringContaining(`"${key}"`),
      });
      const raw = await post('x', { 'idempotency-key': `header-${key}`, 'x-wharf-labels': `ok=1&${key}=x` });
      expect(raw.status, key).toBe(400);
      expect(await errorOf(raw), key).toMatchObject({ field: 'X-Wharf-Labels' });
    }
    expect(await store.findByIdempotencyKey(base, 'label-__proto__')).toBeUndefined();
  });

  it('keeps a "__proto__" key of a JSON value as data', async () => {
    const response = await post(
      '{"idempotencyKey":"proto-value","content":{"kind":"json","value":{"__proto__":{"polluted":true},"a":1}}}',
      { 'content-type': 'application/vnd.wharf.output+json' },
    );
    expect(response.status).toBe(201);
    const { ref } = (await response.json()) as { ref: { outId: string } };
    const { body } = await store.get(ref);
    expect(Buffer.from(body).toString('utf8')).toBe('{"__proto__":{"polluted":true},"a":1}');
  });

  it('answers 404 with the reason for unknown and deleted outputs', async () => {
    const auth = { authorization: `Bearer ${token()}` };
    const unknown = await fetch(`${server.url}/v1/outputs/out_AAAAAAAAAAAAAAAA`, { headers: auth });
    expect(unknown.status).toBe(404);
    expect(await errorOf(unknown)).toMatchObject({ reason: 'unknown' });
    const created = (await (await post('gone', { 'idempotency-key': 'gone-1' })).json()) as {
      ref: { outId: string };
    };
    await store.delete(created.ref);
    const deleted = await fetch(`${server.url}/v1/outputs/${created.ref.outId}/body`, { headers: auth });
    expect(await errorOf(deleted)).toMatchObject({ code: 'NOT_FOUND', reason: 'deleted' });
  });

  it('enforces the per-token output count but still honours retries', async () => {
    const limited = token({ spawnId: 'spawn-quota', maxOutputs: 2 });
    expect((await post('a', { 'idempotency-key': 'q-1' }, limited)).status).toBe(201);
    expect((await post('b', { 'idempotency-key': 'q-2' }, limited)).status).toBe(201);
    const third = await post('c', { 'idempotency-key': 'q-3' }, limited);
    expect(third.status).toBe(403);
    expect(await errorOf(third)).toMatchObject({ message: expect.stringMatching(/at most 2 outputs/) });
    expect((await post('b', { 'idempotency-key': 'q-2' }, limited)).status).toBe(200);
  });
});

describe('intake server on SQLite', () => {
  it('streams a large body into a content-addressed file and back', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'wharf-intake-sqlite-'));
    const store = new SqliteOutputStore({ path: join(directory, 'outputs.db') });
    const server = await createIntakeServer({ store, secret });
    try {
      const body = Buffer.alloc(3 * 1024 * 1024);
      for (let index = 0; index < body.length; index += 4096) body[index] = index % 253;
      const auth = `Bearer ${issueSpawnToken({ ...base, maxOutputBytes: 8 << 20 }, secret)}`;
      const created = await fetch(`${server.url}/v1/outputs`, {
        method: 'POST',
        body,
        headers: {
          authorization: auth,
          'idempotency-key': 'large',
          'content-type': 'application/octet-stream',
        },
      });
      expect(created.status).toBe(201);
      const { record } = (await created.json()) as {
        record: { outId: string; storage: string; sizeBytes: number };
      };
      expect(record).toMatchObject({ storage: 'file', sizeBytes: body.length });
      const read = await fetch(`${server.url}/v1/outputs/${record.outId}/body`, {
        headers: { authorization: auth, range: 'bytes=1048576-' },
      });
      expect(Buffer.from(await read.arrayBuffer()).equals(body.subarray(1048576))).toBe(true);
    } finally {
      await server.close();
      await store.close();
      await rm(directory, { recursive: true, force: true });
    }
  });
});
