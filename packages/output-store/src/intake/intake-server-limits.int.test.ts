import { connect, type Socket } from 'node:net';
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

/**
 * Sends `head`, then reads until the server's first answer line is complete; resolves with it
 * (a `100 Continue`, or the final status line) and the socket, still open.
 */
function firstLine(
  server: IntakeServer,
  head: string,
): Promise<{ line: string; socket: Socket; rest: () => Promise<string> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1');
    let received = '';
    let closed = false;
    const waiting: (() => void)[] = [];
    socket.on('error', reject);
    socket.on('close', () => {
      closed = true;
      for (const wake of waiting.splice(0)) wake();
    });
    socket.on('data', (chunk) => {
      received += chunk.toString('latin1');
      for (const wake of waiting.splice(0)) wake();
      const end = received.indexOf('\r\n');
      if (end >= 0 && !resolved) {
        resolved = true;
        resolve({
          line: received.slice(0, end),
          socket,
          // Everything the server sent from the start, once its final answer is in.
          rest: async () => {
            while (!closed && !/\r\n\r\n[\s\S]*"(ref|error)"[\s\S]*}\s*$/.test(received))
              await new Promise<void>((wake) => waiting.push(wake));
            return received;
          },
        });
      }
    });
    let resolved = false;
    socket.write(head);
  });
}

describe('intake answers before a body it will not read', () => {
  it('answers 413 to Expect: 100-continue with 2 GiB declared, without 100 Continue, and closes', async () => {
    const store = new InMemoryOutputStore();
    const server = await serve({ store });
    const head =
      `POST /v1/outputs HTTP/1.1\r\nHost: intake\r\nAuthorization: Bearer ${token}\r\n` +
      `Idempotency-Key: huge\r\nContent-Length: ${2 * 2 ** 30}\r\nExpect: 100-continue\r\n\r\n`;
    const { line, rest, socket } = await firstLine(server, head);
    expect(line).toBe('HTTP/1.1 413 Payload Too Large');
    const answer = await rest();
    expect(answer).toMatch(/\r\nConnection: close\r\n/i);
    expect(answer).toContain('"code":"TOO_LARGE"');
    socket.destroy();
    // A refusal for another reason: no 100 either.
    const anonymous = await firstLine(
      server,
      'POST /v1/outputs HTTP/1.1\r\nHost: intake\r\nIdempotency-Key: k\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n',
    );
    expect(anonymous.line).toBe('HTTP/1.1 401 Unauthorized');
    anonymous.socket.destroy();
  });

  it('sends 100 Continue to an EMIT it will read, then stores its body', async () => {
    const store = new InMemoryOutputStore();
    const server = await serve({ store });
    const { line, socket, rest } = await firstLine(
      server,
      `POST /v1/outputs HTTP/1.1\r\nHost: intake\r\nAuthorization: Bearer ${token}\r\n` +
        'Idempotency-Key: continued\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n',
    );
    expect(line).toBe('HTTP/1.1 100 Continue');
    socket.write('hello');
    expect(await rest()).toMatch(/HTTP\/1\.1 201 Created/);
    socket.destroy();
    const ref = await store.findByIdempotencyKey(
      { ownerId: 'owner-l', runId: 'run-l', spawnId: 'spawn-l' },
      'continued',
    );
    expect(ref && Buffer.from((await store.get(ref)).body).toString()).toBe('hello');
  });

  it('answers 503 to each of 50 raw requests over the concurrency cap, never a connection reset', async () => {
    const { store, open, entered } = gatedStore(new InMemoryOutputStore(), 2);
    const server = await serve({ store, maxConcurrentRequests: 2 });
    const size = 2 * 2 ** 20;
    const body = Buffer.alloc(size, 'a');
    const bigToken = issueSpawnToken(
      {
        v: 1,
        ownerId: 'owner-l',
        runId: 'run-l',
        spawnId: 'spawn-big',
        readRefs: [],
        expiresAt: Date.now() + 3_600_000,
        maxOutputs: 100,
        maxOutputBytes: 2 * size,
      },
      secret,
    );
    // A client on a slow link that reads its answer only once it has sent its whole request,
    // and closes the connection after it (as HTTP/1.0-style clients do).
    const send = (key: string, pauseMs: number) =>
      new Promise<string>((resolve) => {
        const socket = connect(server.port, '127.0.0.1');
        socket.pause();
        let answer = '';
        socket.on('error', (error: NodeJS.ErrnoException) => resolve(`reset (${error.code})`));
        socket.on('data', (chunk) => {
          answer += chunk.toString('latin1');
        });
        socket.on('close', () => resolve(answer.slice(0, 12) || 'closed without an answer'));
        socket.write(`${postHead(key, size).slice(0, -2).replace(token, bigToken)}Connection: close\r\n\r\n`);
        socket.write(body.subarray(0, size / 2));
        const rest = () => socket.write(body.subarray(size / 2), () => socket.resume());
        if (pauseMs === 0) rest();
        else setTimeout(rest, pauseMs);
      });
    const held = [send('held-1', 0), send('held-2', 0)];
    await entered;
    const refused = await Promise.all(Array.from({ length: 50 }, (_, index) => send(`over-${index}`, 1000)));
    expect(refused).toEqual(Array.from({ length: 50 }, () => 'HTTP/1.1 503'));
    open();
    expect(await Promise.all(held)).toEqual(['HTTP/1.1 201', 'HTTP/1.1 201']);
  });
});
