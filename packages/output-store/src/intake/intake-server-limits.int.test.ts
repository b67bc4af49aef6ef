import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { InMemoryOutputStore } from '../in-memory-output-store.js';
import { issueSpawnToken } from '../spawn-token.js';
import { gatedStore } from './gated-store.test.data.js';
import { createIntakeServer, type IntakeServer, type IntakeServerOptions } from './intake-server.js';

const secret = 'intake-limits-secret-with-enough-bytes-01';
const token = issueSpawnToken(
  {
    v: 1,
    ownerId: 'owner-l',
    runId: 'run-l',
    spawnId: 'spawn-l',
    readRefs: [],
    expiresAt: Date.now() + 3_600_000,
    maxOutputs: 100,
    maxOutputBytes: 1 << 20,
  },
  secret,
);

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function serve(options: Omit<IntakeServerOptions, 'secret'>): Promise<IntakeServer> {
  const server = await createIntakeServer({ secret, ...options });
  cleanups.push(() => server.close());
  return server;
}

/**
 * Sends `head` on a real socket, then `body` one byte per `intervalMs`; resolves when the
 * server closes the connection, with what it answered and how many body bytes went out.
 */
function drip(
  server: IntakeServer,
  head: string,
  body: string,
  intervalMs: number,
): Promise<{ answer: string; sent: number }> {
  return new Promise((resolve) => {
    const socket = connect(server.port, '127.0.0.1');
    let answer = '';
    let sent = 0;
    const timer = setInterval(() => {
      if (sent < body.length && socket.writable) socket.write(body[sent++] ?? '');
    }, intervalMs);
    socket.write(head);
    socket.on('data', (chunk) => {
      answer += chunk.toString('latin1');
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ answer, sent });
    });
  });
}

const postHead = (key: string, contentLength: number) =>
  `POST /v1/outputs HTTP/1.1\r\nHost: intake\r\nAuthorization: Bearer ${token}\r\n` +
  `Idempotency-Key: ${key}\r\nContent-Length: ${contentLength}\r\n\r\n`;

describe('intake server timeouts', () => {
  it('answers 408 and closes a body dripped slower than requestTimeoutMs, storing nothing', async () => {
    const store = new InMemoryOutputStore();
    const server = await serve({ store, requestTimeoutMs: 300, idleTimeoutMs: 60_000 });
    // 500 bytes at one per 20 ms would take 10 s.
    const { answer, sent } = await drip(server, postHead('drip', 500), 'x'.repeat(500), 20);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(sent).toBeLessThan(500);
    expect(
      await store.findByIdempotencyKey({ ownerId: 'owner-l', runId: 'run-l', spawnId: 'spawn-l' }, 'drip'),
    ).toBeUndefined();
  });

  it('answers 408 to headers dripped slower than headersTimeoutMs', async () => {
    const server = await serve({ store: new InMemoryOutputStore(), headersTimeoutMs: 300 });
    const head = postHead('slow-head', 1);
    const requestLine = head.slice(0, head.indexOf('\r\n') + 2);
    const rest = head.slice(requestLine.length);
    const { answer, sent } = await drip(server, requestLine, rest, 20);
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(sent).toBeLessThan(rest.length);
  });

  it('closes a connection that goes quiet for idleTimeoutMs in the middle of a body', async () => {
    const store = new InMemoryOutputStore();
    const server = await serve({ store, idleTimeoutMs: 300 });
    const { answer } = await drip(server, `${postHead('quiet', 100)}only part of it`, '', 20);
    expect(answer).toBe('');
    expect(
      await store.findByIdempotencyKey({ ownerId: 'owner-l', runId: 'run-l', spawnId: 'spawn-l' }, 'quiet'),
    ).toBeUndefined();
  });

  it('refuses timeouts that are not positive whole milliseconds, naming the option', async () => {
    await expect(
      createIntakeServer({ store: new InMemoryOutputStore(), secret, requestTimeoutMs: 0 }),
    ).rejects.toMatchObject({ code: 'INVALID_EVENT', field: 'requestTimeoutMs' });
  });
});

describe('intake server concurrency cap', () => {
  it('answers 503 with Retry-After beyond maxConcurrentRequests and serves again once requests finish', async () => {
    const { store, open, entered } = gatedStore(new InMemoryOutputStore(), 2);
    const server = await serve({ store, maxConcurrentRequests: 2 });
    const post = (key: string) =>
      fetch(`${server.url}/v1/outputs`, {
        method: 'POST',
        body: key,
        headers: { authorization: `Bearer ${token}`, 'idempotency-key': key },
      });
    const held = [post('held-1'), post('held-2')];
    await entered;
    const refused = await post('refused');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toMatchObject({
      error: { code: 'UNAVAILABLE', message: expect.stringMatching(/limit of 2 concurrent requests/) },
    });
    expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
    open();
    expect((await Promise.all(held)).map((response) => response.status)).toEqual([201, 201]);
    expect((await post('after')).status).toBe(201);
    expect(
      await store.findByIdempotencyKey({ ownerId: 'owner-l', runId: 'run-l', spawnId: 'spawn-l' }, 'refused'),
    ).toBeUndefined();
  });
});
