import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryOutputStore } from '../in-memory-output-store.js';
import type { SpawnTokenClaims } from '../schemas.js';
import { issueSpawnToken } from '../spawn-token.js';
import { SqliteOutputStore } from '../sqlite/sqlite-output-store.js';
import type { OutputStore } from '../types.js';
import { gatedStore } from './gated-store.test.data.js';
import type { IntakeOptions } from './intake-options.js';
import { createIntakeServer } from './intake-server.js';

const secret = 'intake-request-test-secret-with-enough-bytes';
const base: SpawnTokenClaims = {
  v: 1,
  ownerId: 'owner-f',
  runId: 'run-f',
  spawnId: 'spawn-f',
  agent: 'writer',
  readRefs: [],
  expiresAt: Date.now() + 3_600_000,
  maxOutputs: 100,
  maxOutputBytes: 1 << 20,
};
const token = (overrides: Partial<SpawnTokenClaims> = {}) =>
  issueSpawnToken({ ...base, ...overrides }, secret);

async function serve(options: IntakeOptions) {
  const server = await createIntakeServer(options);
  return { port: server.port, close: () => server.close() };
}

/**
 * Sends `request` as is on a new connection and answers the whole response as text once its
 * `Content-Length` bytes are in, with the Date header's value and, in JSON bodies, output ids
 * and times masked (they differ between two stores however alike). The connection is kept
 * open until then, as a client's would be.
 */
function exchange(port: number, request: string | Buffer, cutAfterBytes?: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      const text = received.toString('latin1');
      const headEnd = text.indexOf('\r\n\r\n');
      if (headEnd < 0) return;
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(text)?.[1] ?? Number.NaN);
      if (received.byteLength < headEnd + 4 + length) return;
      socket.destroy();
      resolve(
        text
          .replace(/\r\nDate: [^\r]*/, '\r\nDate: <date>')
          .replace(/out_[A-Za-z0-9_-]{16,}/g, 'out_<id>')
          .replace(/"(createdAt|expiresAt)":"[^"]*"/g, '"$1":"<time>"'),
      );
    });
    socket.on('error', reject);
    socket.write(cutAfterBytes === undefined ? request : request.slice(0, cutAfterBytes));
  });
}

type Header = readonly [name: string, value: string];

/** A raw HTTP/1.1 request; `Content-Length` is added for the body unless a header sets it or chunks it. */
function rawRequest(
  headers: readonly Header[],
  body = '',
  { method = 'POST', path = '/v1/outputs' }: { method?: string; path?: string } = {},
): string {
  const names = headers.map(([name]) => name.toLowerCase());
  const framed = names.includes('content-length') || names.includes('transfer-encoding');
  const lines = [
    ...headers,
    ...(framed ? [] : [['Content-Length', String(Buffer.byteLength(body))] as const]),
  ];
  return `${method} ${path} HTTP/1.1\r\n${lines.map(([name, value]) => `${name}: ${value}\r\n`).join('')}\r\n${body}`;
}

const host: Header = ['Host', 'intake.local:4000'];
const bearer = (value = token()): Header => ['Authorization', `Bearer ${value}`];
const key = (value: string): Header => ['Idempotency-Key', value];
const post = (extra: readonly Header[], body = 'hello') => rawRequest([host, bearer(), ...extra], body);

const statusOf = (answer: string) => Number(answer.slice(9, 12));

/** What each request is and the status the intake answers. */
const cases: [title: string, status: number, request: () => string][] = [
  ['a raw body', 201, () => post([key('k-raw'), ['Content-Type', 'text/markdown']])],
  ['its retry', 200, () => post([key('k-raw'), ['Content-Type', 'text/markdown']])],
  ['another body under its key', 409, () => post([key('k-raw')], 'other')],
  [
    'a name, labels and a ttl',
    201,
    () =>
      post([
        key(encodeURIComponent('clé/1')),
        ['X-Wharf-Name', encodeURIComponent('résumé.md')],
        ['X-Wharf-Labels', 'step=draft&lang=en'],
        ['X-Wharf-Ttl-Ms', '60000'],
      ]),
  ],
  ['an empty body', 201, () => post([key('k-empty')], '')],
  ['empty metadata headers', 201, () => post([key('k-blank'), ['X-Wharf-Name', '']])],
  [
    'an application/json raw body',
    201,
    () => post([key('k-json'), ['Content-Type', 'application/json']], '{"a":1}'),
  ],
  ['a content type that is no media type', 400, () => post([key('k-ct'), ['Content-Type', 'nonsense']])],
  ['a ttl of 0', 400, () => post([key('k-ttl0'), ['X-Wharf-Ttl-Ms', '0']])],
  ['an idempotency key over 512 characters', 400, () => post([key('k'.repeat(513))])],
  ['a NUL in the idempotency key', 400, () => post([key('k%00nul')])],
  ['no token', 401, () => rawRequest([host, key('k-401a')], 'x')],
  [
    'a Basic credential',
    401,
    () => rawRequest([host, ['Authorization', 'Basic dXNlcjpwYXNz'], key('k-401b')], 'x'),
  ],
  ['a forged token', 401, () => rawRequest([host, bearer(`${token()}x`), key('k-401c')], 'x')],
  [
    'an expired token',
    401,
    () => rawRequest([host, bearer(token({ expiresAt: Date.now() - 1 })), key('k-401d')], 'x'),
  ],
  [
    'a lower-case bearer scheme',
    201,
    () => rawRequest([host, ['Authorization', `bearer ${token()}`], key('k-lower')], 'x'),
  ],
  [
    'an upper-case bearer scheme',
    201,
    () => rawRequest([host, ['Authorization', `BEARER  ${token()}`], key('k-upper')], 'x'),
  ],
  [
    'a body declared over the token limit',
    413,
    () => rawRequest([host, bearer(token({ maxOutputBytes: 4 })), key('k-413')], 'hello'),
  ],
  ['no idempotency key', 400, () => post([])],
  ['an empty idempotency key', 400, () => post([key('')])],
  ['a key that is not percent-encoding', 400, () => post([key('%E0%A4%A')])],
  ['a name that is not percent-encoding', 400, () => post([key('k-name'), ['X-Wharf-Name', '%zz']])],
  ['a ttl that is no number', 400, () => post([key('k-ttl'), ['X-Wharf-Ttl-Ms', 'soon']])],
  ['a reserved label key', 400, () => post([key('k-proto'), ['X-Wharf-Labels', '__proto__=x']])],
  [
    'a JSON envelope',
    201,
    () =>
      post(
        [['Content-Type', 'application/vnd.wharf.output+json']],
        '{"idempotencyKey":"k-env","content":{"kind":"text","text":"hi"}}',
      ),
  ],
  ['a bad JSON envelope', 400, () => post([['Content-Type', 'application/vnd.wharf.output+json']], '{nope')],
  [
    'a chunked body',
    201,
    () =>
      rawRequest(
        [host, bearer(), key('k-chunked'), ['Transfer-Encoding', 'chunked']],
        '5\r\nhello\r\n0\r\n\r\n',
      ),
  ],
  ['a body over 64 KiB', 201, () => post([key('k-big')], 'b'.repeat(65 * 1024))],
  ['a repeated idempotency key header', 201, () => post([key('k-one'), key('k-two')])],
  ['a repeated authorization header', 401, () => rawRequest([host, bearer(), bearer(), key('k-auth2')], 'x')],
  ['a padded idempotency key', 201, () => post([key('  k-padded ')])],
  ['any Host', 201, () => rawRequest([['Host', 'Intake.Local:80'], bearer(), key('k-host')], 'x')],
  [
    'a query string',
    201,
    () => rawRequest([host, bearer(), key('k-query')], 'x', { path: '/v1/outputs?x=1' }),
  ],
  [
    'a trailing slash',
    404,
    () => rawRequest([host, bearer(), key('k-slash')], 'x', { path: '/v1/outputs/' }),
  ],
  ['another method', 404, () => rawRequest([host, bearer(), key('k-put')], 'x', { method: 'PUT' })],
  ['another route without a token', 401, () => rawRequest([host], '', { method: 'GET', path: '/v1/other' })],
  ['a route outside /v1', 404, () => rawRequest([host], '', { method: 'GET', path: '/metrics' })],
  ['health', 200, () => rawRequest([host], '', { method: 'GET', path: '/healthz' })],
];

const stores: [string, (directory: string) => OutputStore][] = [
  ['InMemoryOutputStore', () => new InMemoryOutputStore()],
  ['SqliteOutputStore', (directory) => new SqliteOutputStore({ path: join(directory, 'outputs.db') })],
];

describe.each(stores)('intake requests as sent on the wire (%s)', (_name, makeStore) => {
  let directory: string;
  let store: OutputStore;
  let server: Awaited<ReturnType<typeof serve>>;

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'wharf-intake-requests-'));
    store = makeStore(directory);
    server = await serve({ store, secret });
  });
  afterAll(async () => {
    await server.close();
    await store.close();
    await rm(directory, { recursive: true, force: true });
  });

  it('answers every case with its status, and stores what it accepted as sent', async () => {
    for (const [title, status, request] of cases) {
      expect(statusOf(await exchange(server.port, request())), title).toBe(status);
    }
    const producer = { ownerId: base.ownerId, runId: base.runId, spawnId: base.spawnId };
    const expected: [key: string, body: string, record: Record<string, unknown>][] = [
      ['k-raw', 'hello', { contentType: 'text/markdown', labels: {} }],
      ['clé/1', 'hello', { name: 'résumé.md', labels: { step: 'draft', lang: 'en' } }],
      ['k-empty', '', { sizeBytes: 0 }],
      ['k-blank', 'hello', { contentType: 'application/octet-stream' }],
      ['k-json', '{"a":1}', { contentType: 'application/json' }],
      ['k-env', 'hi', { contentType: 'text/plain; charset=utf-8' }],
      ['k-chunked', 'hello', {}],
      ['k-big', 'b'.repeat(65 * 1024), {}],
      ['k-one, k-two', 'hello', {}],
      ['k-padded', 'hello', {}],
      ['k-lower', 'x', {}],
      ['k-upper', 'x', {}],
    ];
    for (const [idempotencyKey, body, record] of expected) {
      const ref = await store.findByIdempotencyKey(producer, idempotencyKey);
      if (!ref) throw new Error(`${idempotencyKey} was not stored`);
      const stored = await store.get(ref);
      expect(stored.record, idempotencyKey).toMatchObject({
        ...record,
        idempotencyKey,
        producer: { ...producer, agent: 'writer' },
      });
      expect(Buffer.from(stored.body).toString(), idempotencyKey).toBe(body);
    }
    expect(await store.findByIdempotencyKey(producer, 'k-name')).toBeUndefined();
    for (const idempotencyKey of [
      'k-ct',
      'k-ttl0',
      'k-401a',
      'k-401c',
      'k-413',
      'k-proto',
      'k-ttl',
      'k-auth2',
      'k-slash',
      'k-put',
    ]) {
      expect(await store.findByIdempotencyKey(producer, idempotencyKey), idempotencyKey).toBeUndefined();
    }
  });

  it('answers with JSON bodies, Location, WWW-Authenticate and Retry-After as documented', async () => {
    const created = await exchange(server.port, post([key('k-shape')]));
    expect(created).toMatch(/^HTTP\/1\.1 201 Created\r\n/);
    expect(created).toMatch(/\r\nContent-Type: application\/json\r\n/i);
    expect(created).toMatch(/\r\nLocation: \/v1\/outputs\/out_<id>\r\n/i);
    const body = JSON.parse(created.slice(created.indexOf('\r\n\r\n') + 4)) as {
      ref: unknown;
      record: unknown;
    };
    expect(body).toMatchObject({
      ref: { outId: 'out_<id>' },
      record: { idempotencyKey: 'k-shape', sizeBytes: 5 },
    });
    const refused = await exchange(server.port, rawRequest([host, key('k-no-token')], 'x'));
    expect(refused).toMatch(/\r\nWWW-Authenticate: Bearer\r\n/i);
    expect(JSON.parse(refused.slice(refused.indexOf('\r\n\r\n') + 4))).toEqual({
      error: { code: 'UNAUTHORIZED', message: expect.stringContaining('bearer token') },
    });
    const missing = await exchange(server.port, rawRequest([host], '', { method: 'GET', path: '/nowhere' }));
    expect(JSON.parse(missing.slice(missing.indexOf('\r\n\r\n') + 4))).toEqual({
      error: { code: 'NOT_FOUND', message: 'no such route' },
    });
  });

  it('answers a spawn over its maxOutputs with 403 after reading the body', async () => {
    const limited = token({ spawnId: 'spawn-quota', maxOutputs: 1 });
    expect(
      statusOf(await exchange(server.port, rawRequest([host, bearer(limited), key('q-1')], 'one'))),
    ).toBe(201);
    expect(
      statusOf(await exchange(server.port, rawRequest([host, bearer(limited), key('q-2')], 'two'))),
    ).toBe(403);
    expect(
      statusOf(await exchange(server.port, rawRequest([host, bearer(limited), key('q-1')], 'one'))),
    ).toBe(200);
  });
});

describe('intake admission', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('counts raw and JSON EMITs against one maxConcurrentRequests', async () => {
    const { store, open, entered } = gatedStore(new InMemoryOutputStore(), 2);
    const server = await serve({ store, secret, maxConcurrentRequests: 2 });
    cleanups.push(() => server.close());
    const envelope = '{"idempotencyKey":"held-json","content":{"kind":"text","text":"hi"}}';
    const held = [
      exchange(server.port, post([key('held-raw')])),
      exchange(server.port, post([['Content-Type', 'application/vnd.wharf.output+json']], envelope)),
    ];
    await entered;
    const refused = await exchange(server.port, post([key('refused')]));
    expect(statusOf(refused)).toBe(503);
    expect(refused).toMatch(/\r\nRetry-After: 1\r\n/i);
    open();
    expect((await Promise.all(held)).map(statusOf)).toEqual([201, 201]);
    expect(statusOf(await exchange(server.port, post([key('after')])))).toBe(201);
  });

  it('stores nothing and frees its slot when a client leaves in the middle of a body', async () => {
    const store = new InMemoryOutputStore();
    const server = await serve({ store, secret, maxConcurrentRequests: 1 });
    cleanups.push(() => server.close());
    const request = post([key('cut')], 'x'.repeat(1000));
    await new Promise<void>((resolve) => {
      const socket = connect(server.port, '127.0.0.1', () => {
        socket.write(request.slice(0, request.length - 500), () => {
          socket.destroy();
          resolve();
        });
      });
    });
    // The slot comes back once the server has seen the connection close.
    let status = 503;
    for (let attempt = 0; attempt < 200 && status === 503; attempt++) {
      status = statusOf(await exchange(server.port, post([key('after')])));
      if (status === 503) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(status).toBe(201);
    const producer = { ownerId: base.ownerId, runId: base.runId, spawnId: base.spawnId };
    expect(await store.findByIdempotencyKey(producer, 'cut')).toBeUndefined();
  });
});
