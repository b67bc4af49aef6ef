import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  createIntakeServer,
  type IntakeServer,
  issueSpawnToken,
  SqliteOutputStore,
} from '@wharf/output-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const cli = fileURLToPath(new URL('../../apps/cli/dist/main.js', import.meta.url));

describe('wharf emit inside a script retried by Temporal', () => {
  let dir: string;
  let store: SqliteOutputStore;
  let intake: IntakeServer;
  const secret = 's'.repeat(32);
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-cli-emit-'));
    store = new SqliteOutputStore({ path: join(dir, 'outputs.db') });
    intake = await createIntakeServer({ store, secret, port: 0 });
  });
  afterAll(async () => {
    await intake.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** One `printf body | wharf emit …` as a script of attempt `base` would run it. */
  function emit(body: string, args: string[]): Promise<string> {
    const token = issueSpawnToken(
      {
        v: 1,
        ownerId: 'team',
        runId: 'run-1',
        spawnId: 'build',
        readRefs: [],
        expiresAt: Date.now() + 60_000,
        maxOutputs: 10,
        maxOutputBytes: 1_000_000,
      },
      secret,
    );
    return new Promise((resolve, reject) => {
      const child = execFile(
        process.execPath,
        [cli, 'emit', ...args],
        {
          env: {
            PATH: process.env.PATH,
            WHARF_OUTPUT_URL: intake.url,
            WHARF_OUTPUT_TOKEN: token,
            WHARF_EMIT_KEY: 'wf-1/run-a/7/script',
          },
        },
        (error, stdout, stderr) => (error ? reject(new Error(stderr)) : resolve(stdout.trim())),
      );
      child.stdin?.end(body);
    });
  }

  it('gives a re-EMIT of the same output the same ref, and a new output a new one', async () => {
    const first = await emit('alpha', ['--name', 'a.txt']);
    expect(first).toMatch(/^out_/);
    expect(await emit('alpha', ['--name', 'a.txt'])).toBe(first);
    const other = await emit('beta', ['--name', 'b.txt']);
    expect(other).not.toBe(first);
    const keyed = await emit('gamma', ['--key', 'report']);
    expect(await emit('gamma', ['--key', 'report'])).toBe(keyed);
    const records = (await store.list({ ownerId: 'team' })).records;
    expect(records).toHaveLength(3);
    expect(records.find((record) => record.outId === keyed)?.idempotencyKey).toBe(
      'wf-1/run-a/7/script/key/report',
    );
  });
});
