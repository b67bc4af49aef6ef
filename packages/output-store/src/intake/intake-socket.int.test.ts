import { statSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OutputClient } from '../client/output-client.js';
import { unixSocketPath, unixSocketUrl } from '../client/unix-socket-fetch.js';
import { InMemoryOutputStore } from '../in-memory-output-store.js';
import { issueSpawnToken } from '../spawn-token.js';
import { createIntakeServer, type IntakeServer } from './intake-server.js';

const secret = 'intake-test-secret-with-enough-bytes-0001';
const token = issueSpawnToken(
  {
    v: 1,
    ownerId: 'owner-a',
    runId: 'run-1',
    spawnId: 'spawn-1',
    readRefs: [],
    expiresAt: Date.now() + 3_600_000,
    maxOutputs: 100,
    maxOutputBytes: 1 << 20,
  },
  secret,
);

describe('intake server on a Unix socket', () => {
  let directory: string;
  let server: IntakeServer;
  const store = new InMemoryOutputStore();

  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'wharf-intake-socket-'));
    // A stale socket file of a worker that died is replaced.
    await writeFile(join(directory, 'intake.sock'), '');
    server = await createIntakeServer({ store, secret, socketPath: join(directory, 'intake.sock') });
  });
  afterAll(async () => {
    await server.close();
    await rm(directory, { recursive: true, force: true });
  });

  it('listens on TCP and on the socket, which only its owner may use', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.socketUrl).toBe(unixSocketUrl(join(directory, 'intake.sock')));
    expect(unixSocketPath(server.socketUrl ?? '')).toBe(join(directory, 'intake.sock'));
    expect(statSync(join(directory, 'intake.sock')).mode & 0o777).toBe(0o600);
  });

  it('takes EMITs of text and of streams over the socket, and reads them back', async () => {
    const client = new OutputClient({ url: server.socketUrl as string, token, env: {} });
    const text = await client.emit('over the socket', { name: 'a.txt' });
    const streamed = await client.emit(Readable.from([Buffer.from('chunk 1, '), Buffer.from('chunk 2')]));
    expect(await store.stat(text)).toMatchObject({ sizeBytes: 15, name: 'a.txt' });
    expect((await store.stat(streamed)).sizeBytes).toBe(16);
    const reader = new OutputClient({
      url: server.socketUrl as string,
      token: issueSpawnToken(
        {
          v: 1,
          ownerId: 'owner-a',
          runId: 'run-1',
          spawnId: 'spawn-2',
          readRefs: [text.outId],
          expiresAt: Date.now() + 3_600_000,
          maxOutputs: 1,
          maxOutputBytes: 1,
        },
        secret,
      ),
      env: {},
    });
    expect(await reader.readInputText(text)).toBe('over the socket');
    await expect(reader.readInputText(streamed)).rejects.toThrow();
  });
});
