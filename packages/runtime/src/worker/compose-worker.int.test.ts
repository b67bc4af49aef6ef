import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { issueSpawnToken } from '@wharf/output-store';
import { afterEach, describe, expect, it } from 'vitest';
import { composeWorker } from './compose-worker.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('composeWorker intake limits', () => {
  it('passes the intake limits through to the intake server it starts', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'wharf-compose-limits-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const parts = await composeWorker({ dataDir, intake: { limits: { maxBodyBytes: 8 } } });
    cleanups.push(() => parts.close());
    const token = issueSpawnToken(
      {
        v: 1,
        ownerId: 'owner-c',
        runId: 'run-c',
        spawnId: 'spawn-c',
        readRefs: [],
        expiresAt: Date.now() + 3_600_000,
        maxOutputs: 10,
        maxOutputBytes: 1 << 20,
      },
      parts.data.secret,
    );
    const post = (body: string) =>
      fetch(`${parts.intake.url}/v1/outputs`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'idempotency-key': body, 'content-type': 'text/plain' },
        body,
      });
    const tooBig = await post('twenty bytes of text');
    expect(tooBig.status).toBe(413);
    expect(await tooBig.json()).toMatchObject({ error: { code: 'TOO_LARGE', limitBytes: 8 } });
    expect((await post('8 bytes!')).status).toBe(201);
  });
});
