import { connect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createIntakeServer, InMemoryOutputStore, type IntakeServer, issueSpawnToken } from '../index.js';
import { EmitRetriesExhaustedError } from './emit-retries-exhausted-error.js';
import { OutputClient } from './output-client.js';

const secret = 'emit-retry-secret-with-enough-bytes-0001';
const producer = { ownerId: 'owner-r', runId: 'run-r', spawnId: 'spawn-r' };
const token = issueSpawnToken(
  {
    v: 1,
    ...producer,
    readRefs: [],
    expiresAt: Date.now() + 3_600_000,
    maxOutputs: 100,
    maxOutputBytes: 1 << 20,
  },
  secret,
);

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A real intake that handles one `/v1` request at a time. */
async function busyIntake(): Promise<{ server: IntakeServer; store: InMemoryOutputStore }> {
  const store = new InMemoryOutputStore();
  const server = await createIntakeServer({ store, secret, maxConcurrentRequests: 1 });
  cleanups.push(() => server.close());
  return { server, store };
}

/** Takes the intake's only slot with a POST whose body has not arrived; `release` sends it. */
function holdSlot(server: IntakeServer): { release: () => void } {
  const socket: Socket = connect(server.port, '127.0.0.1');
  socket.on('error', () => undefined);
  socket.write(
    `POST /v1/outputs HTTP/1.1\r\nHost: intake\r\nAuthorization: Bearer ${token}\r\n` +
      'Idempotency-Key: holder\r\nContent-Length: 4\r\nConnection: close\r\n\r\n',
  );
  cleanups.push(() => void socket.destroy());
  return { release: () => void socket.write('held') };
}

/** The real fetch, noting each POST's status and idempotency key. */
function observedFetch(seen: { status: number; key: string | null }[]): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const response = await fetch(input, init);
    seen.push({ status: response.status, key: new Headers(init?.headers).get('idempotency-key') });
    return response;
  }) as typeof fetch;
}

async function untilBusy(server: IntakeServer): Promise<void> {
  for (;;) {
    const response = await fetch(`${server.url}/v1/outputs/out_x`, {
      headers: { authorization: `Bearer ${token}` },
    });
    await response.body?.cancel();
    if (response.status === 503) return;
  }
}

describe('OutputClient EMIT against a busy intake', () => {
  it('retries 503 after Retry-After until the intake has room, every attempt with the same idempotency key', async () => {
    const { server, store } = await busyIntake();
    const holder = holdSlot(server);
    await untilBusy(server);
    setTimeout(holder.release, 300);
    const seen: { status: number; key: string | null }[] = [];
    const client = new OutputClient({ url: server.url, token, fetch: observedFetch(seen) });
    const ref = await client.emit('hello', { name: 'a.txt', idempotencyKey: 'greeting' });
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen.slice(0, -1).every((attempt) => attempt.status === 503)).toBe(true);
    expect(seen.at(-1)?.status).toBe(201);
    expect(new Set(seen.map((attempt) => attempt.key))).toEqual(new Set(['greeting']));
    const stored = await store.get(ref);
    expect(Buffer.from(stored.body).toString()).toBe('hello');
    expect(await store.count(producer)).toBe(2); // the holder's output and this one, once
  });

  it('replays a streamed body on the retry, whole', async () => {
    const { server, store } = await busyIntake();
    const holder = holdSlot(server);
    await untilBusy(server);
    setTimeout(holder.release, 300);
    async function* chunks(): AsyncIterable<Uint8Array> {
      for (const part of ['one ', 'two ', 'three']) yield new TextEncoder().encode(part);
    }
    const client = new OutputClient({ url: server.url, token });
    const ref = await client.emit(chunks(), { name: 'stream.txt', idempotencyKey: 'stream' });
    expect(Buffer.from((await store.get(ref)).body).toString()).toBe('one two three');
  });

  it('gives up after maxAttempts with a typed error naming the attempts and the last status', async () => {
    const { server, store } = await busyIntake();
    holdSlot(server);
    await untilBusy(server);
    const client = new OutputClient({ url: server.url, token, retry: { maxAttempts: 2 } });
    const failure = await client.emit('never', { idempotencyKey: 'never' }).catch((error: unknown) => error);
    expect(EmitRetriesExhaustedError.isInstance(failure)).toBe(true);
    expect(failure).toMatchObject({ code: 'UNAVAILABLE', attempts: 2, lastStatus: 503 });
    expect((failure as Error).message).toMatch(/after 2 attempts .* last status 503/);
    expect(await store.count(producer)).toBe(0);
  });

  it('does not wait past maxElapsedMs for a Retry-After that would exceed it', async () => {
    const { server } = await busyIntake();
    holdSlot(server);
    await untilBusy(server);
    const client = new OutputClient({ url: server.url, token, retry: { maxElapsedMs: 500 } });
    const started = Date.now();
    const failure = await client.emit('late', { idempotencyKey: 'late' }).catch((error: unknown) => error);
    expect(failure).toMatchObject({ attempts: 1, lastStatus: 503, message: /after 500 ms/ });
    expect(Date.now() - started).toBeLessThan(1000);
  });
});
