import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IN_REFS_ENV_MAX_BYTES, inputsEnv, inRefsEnv } from './in-refs-env.js';

const run = promisify(execFile);

describe('inRefsEnv', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-in-refs-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('passes a short list in IN_REFS', async () => {
    expect(await inRefsEnv(['out_a', 'out_b'], dir)).toEqual({ IN_REFS: 'out_a,out_b' });
    expect(await inRefsEnv([], dir)).toEqual({ IN_REFS: '' });
  });

  it('writes 10,000 refs to a file a real child process can start with and read', async () => {
    const refs = Array.from({ length: 10_000 }, (_, index) => `out_${String(index).padStart(16, '0')}`);
    expect(refs.join(',').length).toBeGreaterThan(IN_REFS_ENV_MAX_BYTES);
    const env = await inRefsEnv(refs, dir);
    expect(env.IN_REFS).toBeUndefined();
    expect(JSON.parse(await readFile(env.WHARF_IN_REFS_FILE as string, 'utf8'))).toEqual(refs);
    const { stdout } = await run('sh', ['-c', 'wc -c < "$WHARF_IN_REFS_FILE"'], {
      env: { PATH: process.env.PATH, ...env },
    });
    expect(Number(stdout.trim())).toBe(JSON.stringify(refs).length);
  });

  it('the same refs in one variable make the process fail to start (why the file exists)', async () => {
    const refs = Array.from({ length: 10_000 }, (_, index) => `out_${String(index).padStart(16, '0')}`);
    // Node throws spawn errors synchronously: start inside an async function to get a rejection.
    const start = async () =>
      run('sh', ['-c', 'true'], { env: { PATH: process.env.PATH, IN_REFS: refs.join(',') } });
    await expect(start()).rejects.toThrow(/E2BIG/);
  });
});

describe('inputsEnv', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-inputs-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('passes small inputs in WHARF_INPUTS', async () => {
    expect(await inputsEnv({ item: 'a.ts', index: 0 }, dir)).toEqual({
      WHARF_INPUTS: '{"item":"a.ts","index":0}',
    });
  });

  it('writes the inputs of a join over 3,000 instances to a file a child starts with (in the variable: E2BIG)', async () => {
    const each = Array.from({ length: 3_000 }, (_, index) => ({
      outId: `out_${String(index).padStart(16, '0')}`,
      preview: 'ok',
    }));
    const env = await inputsEnv({ each }, dir);
    expect(env.WHARF_INPUTS).toBeUndefined();
    const { stdout } = await run('sh', ['-c', 'wc -c < "$WHARF_INPUTS_FILE"'], {
      env: { PATH: process.env.PATH, ...env },
    });
    expect(Number(stdout.trim())).toBe(JSON.stringify({ each }).length);
    const start = async () =>
      run('sh', ['-c', 'true'], { env: { PATH: process.env.PATH, WHARF_INPUTS: JSON.stringify({ each }) } });
    await expect(start()).rejects.toThrow(/E2BIG/);
  });
});
