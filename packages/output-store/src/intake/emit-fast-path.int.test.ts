import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { type AddressInfo, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getRequestListener } from '@hono/node-server';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { InMemoryOutputStore } from '../in-memory-output-store.js';
import type { SpawnTokenClaims } from '../schemas.js';
import { issueSpawnToken } from '../spawn-token.js';
import { SqliteOutputStore } from '../sqlite/sqlite-output-store.js';
import type { OutputStore } from '../types.js';
import { gatedStore } from './gated-store.test.data.js';
import { intakeApp } from './intake-app.js';
import { IntakeCore } from './intake-core.js';
import { type IntakeLayer, intakeListener } from './intake-listener.js';
import type { IntakeAppOptions } from './intake-options.js';

const secret = 'fast-path-test-secret-with-enough-bytes-01';
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

interface Listening {
  readonly port: number;
  close(): Promise<void>;
}

function listen(listener: (request: IncomingMessage, response: ServerResponse) => void): Promise<Listening> {
  const server = createServer(listener);
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      resolve({
        port: (server.address() as AddressInfo).port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeAllConnections();
          }),
      });
    });
  });
}

/** The intake answering through the Hono app alone: what every answer must equal. */
function honoOnly(options: IntakeAppOptions): Promise<Listening> {
  const hono = getRequestListener(intakeApp(new IntakeCore(options)).fetch, { hostname: '127.0.0.1' });
  return listen((request, response) => void hono(request, response));
}

/** The intake as `createIntakeServer` wires it, telling which layer served each request. */
async function layered(options: IntakeAppOptions) {
  const served: IntakeLayer[] = [];
  const core = new IntakeCore(options);
  const server = await listen(
    intakeListener(core, { hostname: '127.0.0.1', onServed: (layer) => served.push(layer) }),
  );
  return { ...server, core, served };
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

/** What each request is, which layer must serve it, and the status both layers answer. */
const cases: [title: string, layer: IntakeLayer, status: number, request: () => string][] = [
  ['a raw body', 'fast-path', 201, () => post([key('k-raw'), ['Content-Type', 'text/markdown']])],
  ['its retry', 'fast-path', 200, () => post([key('k-raw'), ['Content-Type', 'text/markdown']])],
  ['another body under its key', 'fast-path', 409, () => post([key('k-raw')], 'other')],
  [
    'a name, labels and a ttl',
    'fast-path',
    201,
    () =>
      post([
        key(encodeURIComponent('clé/1')),
        ['X-Wharf-Name', encodeURIComponent('résumé.md')],
        ['X-Wharf-Labels', 'step=draft&lang=en'],
        ['X-Wharf-Ttl-Ms', '60000'],
      ]),
  ],
  ['an empty body', 'fast-path', 201, () => post([key('k-empty')], '')],
  ['empty metadata headers', 'fast-path', 201, () => post([key('k-blank'), ['X-Wharf-Name', '']])],
  [
    'an application/json raw body',
    'fast-path',
    201,
    () => post([key('k-json'), ['Content-Type', 'application/json']], '{"a":1}'),
  ],
  // Refused only once the body is read: the fast path answers these itself.
  [
    'a content type that is no media type',
    'fast-path',
    400,
    () => post([key('k-ct'), ['Content-Type', 'nonsense']]),
  ],
  ['a ttl of 0', 'fast-path', 400, () => post([key('k-ttl0'), ['X-Wharf-Ttl-Ms', '0']])],
  ['an idempotency key over 512 characters', 'fast-path', 400, () => post([key('k'.repeat(513))])],
  // Refused before the body: declined, so the Hono app answers.
  ['no token', 'hono', 401, () => rawRequest([host, key('k-401a')], 'x')],
  [
    'a Basic credential',
    'hono',
    401,
    () => rawRequest([host, ['Authorization', 'Basic dXNlcjpwYXNz'], key('k-401b')], 'x'),
  ],
  ['a forged token', 'hono', 401, () => rawRequest([host, bearer(`${token()}x`), key('k-401c')], 'x')],
  [
    'an expired token',
    'hono',
    401,
    () => rawRequest([host, bearer(token({ expiresAt: Date.now() - 1 })), key('k-401d')], 'x'),
  ],
  [
    'a body declared over the token limit',
    'hono',
    413,
    () => rawRequest([host, bearer(token({ maxOutputBytes: 4 })), key('k-413')], 'hello'),
  ],
  ['no idempotency key', 'hono', 400, () => post([])],
  ['an empty idempotency key', 'hono', 400, () => post([key('')])],
  ['a key that is not percent-encoding', 'hono', 400, () => post([key('%E0%A4%A')])],
  ['a name that is not percent-encoding', 'hono', 400, () => post([key('k-name'), ['X-Wharf-Name', '%zz']])],
  ['a ttl that is no number', 'hono', 400, () => post([key('k-ttl'), ['X-Wharf-Ttl-Ms', 'soon']])],
  ['a reserved label key', 'hono', 400, () => post([key('k-proto'), ['X-Wharf-Labels', '__proto__=x']])],
  // Unusual requests the fast path leaves to the Hono app, whatever they ask.
  [
    'a JSON envelope',
    'hono',
    201,
    () =>
      post(
        [['Content-Type', 'application/vnd.wharf.output+json']],
        '{"idempotencyKey":"k-env","content":{"kind":"text","text":"hi"}}',
      ),
  ],
  [
    'a bad JSON envelope',
    'hono',
    400,
    () => post([['Content-Type', 'application/vnd.wharf.output+json']], '{nope'),
  ],
  [
    'a chunked body',
    'hono',
    201,
    () =>
      rawRequest(
        [host, bearer(), key('k-chunked'), ['Transfer-Encoding', 'chunked']],
        '5\r\nhello\r\n0\r\n\r\n',
      ),
  ],
  ['a body over 64 KiB', 'hono', 201, () => post([key('k-big')], 'b'.repeat(65 * 1024))],
  ['a repeated idempotency key header', 'hono', 201, () => post([key('k-one'), key('k-two')])],
  [
    'a repeated authorization header',
    'hono',
    401,
    () => rawRequest([host, bearer(), bearer(), key('k-auth2')], 'x'),
  ],
  [
    'a Host the adapter parses',
    'hono',
    201,
    () => rawRequest([['Host', 'Intake.Local:80'], bearer(), key('k-host')], 'x'),
  ],
  [
    'a query string',
    'hono',
    201,
    () => rawRequest([host, bearer(), key('k-query')], 'x', { path: '/v1/outputs?x=1' }),
  ],
  [
    'a trailing slash',
    'hono',
    404,
    () => rawRequest([host, bearer(), key('k-slash')], 'x', { path: '/v1/outputs/' }),
  ],
  ['another method', 'hono', 404, () => rawRequest([host, bearer(), key('k-put')], 'x', { method: 'PUT' })],
  ['health', 'hono', 200, () => rawRequest([host], '', { method: 'GET', path: '/healthz' })],
];

const stores: [string, (directory: string, name: string) => OutputStore][] = [
  ['InMemoryOutputStore', () => new InMemoryOutputStore()],
  ['SqliteOutputStore', (directory, name) => new SqliteOutputStore({ path: join(directory, `${name}.db`) })],
];

describe.each(stores)('EMIT fast path against the Hono app (%s)', (_name, makeStore) => {
  let directory: string;
  let reference: { server: Listening; store: OutputStore };
  let candidate: { server: Awaited<ReturnType<typeof layered>>; store: OutputStore };

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'wharf-fast-path-'));
    const referenceStore = makeStore(directory, 'reference');
    const candidateStore = makeStore(directory, 'candidate');
    reference = { store: referenceStore, server: await honoOnly({ store: referenceStore, secret }) };
    candidate = { store: candidateStore, server: await layered({ store: candidateStore, secret }) };
  });
  afterAll(async () => {
    await reference.server.close();
    await candidate.server.close();
    await reference.store.close();
    await candidate.store.close();
    await rm(directory, { recursive: true, force: true });
  });

  it('answers every case byte for byte as the Hono app does, from the layer expected, and stores the same', async () => {
    for (const [title, layer, status, request] of cases) {
      const text = request();
      const expected = await exchange(reference.server.port, text);
      const answer = await exchange(candidate.server.port, text);
      expect(statusOf(expected), title).toBe(status);
      expect(answer, title).toBe(expected);
      expect(candidate.server.served.at(-1), title).toBe(layer);
    }
    // Both stored the same outputs, and nothing of what they refused.
    const producer = { ownerId: base.ownerId, runId: base.runId, spawnId: base.spawnId };
    for (const idempotencyKey of ['k-raw', 'clé/1', 'k-empty', 'k-one, k-two', 'k-chunked']) {
      const expected = await reference.store.findByIdempotencyKey(producer, idempotencyKey);
      const stored = await candidate.store.findByIdempotencyKey(producer, idempotencyKey);
      if (!expected || !stored) throw new Error(`${idempotencyKey} was not stored by both`);
      const [left, right] = [await reference.store.get(expected), await candidate.store.get(stored)];
      const { outId: _left, createdAt: _leftAt, expiresAt: _leftExpiry, ...leftRecord } = left.record;
      const { outId: _right, createdAt: _rightAt, expiresAt: _rightExpiry, ...rightRecord } = right.record;
      expect(rightRecord, idempotencyKey).toEqual(leftRecord);
      expect(Buffer.from(right.body).equals(Buffer.from(left.body)), idempotencyKey).toBe(true);
    }
    for (const idempotencyKey of ['k-ct', 'k-ttl0', 'k-401a', 'k-413', 'k-proto', 'k-ttl']) {
      expect(
        await candidate.store.findByIdempotencyKey(producer, idempotencyKey),
        idempotencyKey,
      ).toBeUndefined();
    }
  });

  it('answers a spawn over its maxOutputs with 403 after reading the body, as the Hono app does', async () => {
    const limited = token({ spawnId: 'spawn-quota', maxOutputs: 1 });
    const first = rawRequest([host, bearer(limited), key('q-1')], 'one');
    const second = rawRequest([host, bearer(limited), key('q-2')], 'two');
    for (const request of [first, second]) {
      expect(await exchange(candidate.server.port, request)).toBe(
        await exchange(reference.server.port, request),
      );
      expect(candidate.server.served.at(-1)).toBe('fast-path');
    }
    expect(statusOf(await exchange(candidate.server.port, second))).toBe(403);
  });
});

describe('EMIT fast path and Hono app sharing one intake', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  it('counts both layers against one maxConcurrentRequests', async () => {
    const { store, open, entered } = gatedStore(new InMemoryOutputStore(), 2);
    const server = await layered({ store, secret, maxConcurrentRequests: 2 });
    cleanups.push(() => server.close());
    const envelope = '{"idempotencyKey":"held-hono","content":{"kind":"text","text":"hi"}}';
    const held = [
      exchange(server.port, post([key('held-fast')])),
      exchange(server.port, post([['Content-Type', 'application/vnd.wharf.output+json']], envelope)),
    ];
    await entered;
    expect(server.served).toEqual(['fast-path', 'hono']);
    const refused = await exchange(server.port, post([key('refused')]));
    expect(server.served.at(-1)).toBe('hono');
    expect(statusOf(refused)).toBe(503);
    expect(refused).toMatch(/\r\nretry-after: 1\r\n/);
    open();
    expect((await Promise.all(held)).map(statusOf)).toEqual([201, 201]);
    expect(statusOf(await exchange(server.port, post([key('after')])))).toBe(201);
    expect(server.served.at(-1)).toBe('fast-path');
  });

  it('stores nothing and frees its slot when a client leaves in the middle of a body', async () => {
    const store = new InMemoryOutputStore();
    const server = await layered({ store, secret, maxConcurrentRequests: 1 });
    cleanups.push(() => server.close());
    const request = post([key('cut')], 'x'.repeat(1000));
    await new Promise<void>((resolve) => {
      const socket = connect(server.port, '127.0.0.1', () => {
        socket.write(request.slice(0, request.length - 500), () => {
          // Destroyed once the server has taken the request and is waiting for the rest.
          const wait = setInterval(() => {
            if (server.served.length === 0) return;
            clearInterval(wait);
            socket.destroy();
            resolve();
          }, 5);
        });
      });
    });
    expect(server.served).toEqual(['fast-path']);
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
