import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureProcess } from './capture-process.js';
import { taskOutputFromCapture } from './task-output.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wharf-stdio-task-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('taskOutputFromCapture', () => {
  it('keeps the retained text and the spill path', async () => {
    const capture = await captureProcess('sh', {
      args: ['-c', 'seq 1 5000; echo warn >&2'],
      limits: { max_stdout_bytes: 100, external_storage_dir: dir, external_storage_threshold: 0 },
    });
    const output = taskOutputFromCapture({
      taskId: 'count',
      capture,
      strategy: 'tail',
      now: 42,
      agent: 'counter',
    });
    expect(output).toMatchObject({
      taskId: 'count',
      outputType: 'combined',
      truncated: true,
      originalSize: capture.stdout.totalBytes + 5,
      filePath: capture.stdout.spill?.path,
      completedAt: 42,
      agent: 'counter',
    });
    expect(
      output.content.endsWith(
        '5000\n\n--- Output (showing last 100 bytes of 23893) ---\n--- stderr ---\nwarn\n',
      ),
    ).toBe(true);
  });
});
