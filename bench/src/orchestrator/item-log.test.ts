import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readItemLog } from './item-log.js';

describe('readItemLog', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'item-log-'));
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('counts runs, distinct items and the items redone', async () => {
    await writeFile(join(dir, 'log'), '0\n1\n2\n1\n2\n2\n');
    expect(await readItemLog(join(dir, 'log'))).toEqual({ runs: 6, items: 3, redone: 3 });
  });

  it('reads a missing log as empty', async () => {
    expect(await readItemLog(join(dir, 'none'))).toEqual({ runs: 0, items: 0, redone: 0 });
  });
});
