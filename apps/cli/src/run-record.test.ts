import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordedRunTasks, recordRunTasks } from './run-record.js';

describe('the run record of a data directory', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-run-record-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps a run’s task names, private, under an id of any characters, and knows no other run', async () => {
    await recordRunTasks(dir, 'etl/2026 nightly', ['fetch', 'report']);
    expect(await recordedRunTasks(dir, 'etl/2026 nightly')).toEqual(['fetch', 'report']);
    expect(await recordedRunTasks(dir, 'etl-2027')).toBeUndefined();
    expect((await stat(join(dir, 'runs', 'etl%2F2026%20nightly.json'))).mode & 0o777).toBe(0o600);
    await writeFile(join(dir, 'runs', 'broken.json'), '{"workflowId":"broken","tasks":[1]}');
    expect(await recordedRunTasks(dir, 'broken')).toBeUndefined();
  });
});
