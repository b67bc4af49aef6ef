import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createIntakeServer, issueSpawnToken, SqliteOutputStore } from '@wharf/output-store';
import { spawnEnv } from '@wharf/output-store/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliError } from '../cli-error.js';
import type { CliIo } from '../output.js';
import { emitCommand } from './emit.js';

const secret = 'cli-emit-secret-with-enough-bytes-000000001';
const io: CliIo = { out: () => undefined, err: () => undefined, isTTY: false };
let env: Record<string, string>;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  const dir = await mkdtemp(join(tmpdir(), 'cli-emit-'));
  const store = new SqliteOutputStore({ path: join(dir, 'outputs.db') });
  // A small grace and window, so a stalled stdin is cut within a second.
  const server = await createIntakeServer({
    store,
    secret,
    uploadGraceMs: 200,
    uploadRateWindowMs: 200,
    minUploadBytesPerSecond: 1000,
  });
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
    secret,
  );
  env = { [spawnEnv.outputUrl]: server.url, [spawnEnv.outputToken]: token };
  cleanup = async () => {
    await server.close();
    await store.close();
    await rm(dir, { recursive: true, force: true });
  };
});
afterAll(() => cleanup());

describe('wharf emit', () => {
  it('streams stdin to the intake and prints the out id', async () => {
    async function* stdin() {
      yield Buffer.from('# report\n');
    }
    const options = { label: [], key: 'report', json: false };
    await expect(emitCommand(options, io, stdin(), env)).resolves.toMatch(/^out_/);
  });

  it('exits 75 (TIMEOUT), not 2, when the intake cuts a stalled stdin as too slow', async () => {
    async function* stdin() {
      yield Buffer.from('the start of an output, then nothing');
      await new Promise(() => undefined);
    }
    const error = await emitCommand({ label: [], key: 'stalled', json: false }, io, stdin(), env).catch(
      (caught: unknown) => caught,
    );
    expect(CliError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({
      code: 'TIMEOUT',
      exitCode: 75,
      message: expect.stringMatching(/timed out/),
    });
  });
});
