import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureProcess } from './capture-process.js';
import type { SummaryRequest } from './summarize.js';
import { summarizeCapture } from './summarize-capture.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wharf-stdio-summary-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('summarizeCapture', () => {
  it('summarizes the head and tail of the full spilled output (gzip) and names the spill file', async () => {
    const result = await captureProcess('seq', {
      args: ['1', '200000'],
      limits: {
        max_stdout_bytes: 100,
        truncation_strategy: 'summary',
        external_storage_dir: dir,
        external_storage_threshold: 0,
        compress_external: true,
      },
    });
    const requests: SummaryRequest[] = [];
    const summary = await summarizeCapture(result.stdout, {
      maxBytes: 200,
      maxInputBytes: 64,
      taskId: 'count',
      summarizer: async (request) => {
        requests.push(request);
        return 'Counted from 1 to 200000.';
      },
    });
    expect(requests[0]?.content).toMatch(
      /^--- Output \(showing first \d+\/last \d+ bytes of 1288895\) ---\n1\n2\n/,
    );
    expect(requests[0]?.content.endsWith('199999\n200000\n')).toBe(true);
    expect(requests[0]).toMatchObject({ originalBytes: 1_288_895, maxBytes: 200, taskId: 'count' });
    expect(summary.content).toBe(
      `--- Output Summary (1288895 bytes) ---\nCounted from 1 to 200000.\n--- [Original output stored in: ${result.stdout.spill?.path}] ---`,
    );
  });

  it('keeps the retained text when there is no summarizer, and short output unchanged', async () => {
    const result = await captureProcess('seq', { args: ['1', '1000'], limits: { max_stdout_bytes: 50 } });
    const fallback = await summarizeCapture(result.stdout, { maxBytes: 50 });
    expect(fallback.content).toBe(
      `--- [No summarizer configured; showing first/last bytes instead of a summary] ---\n${result.stdout.text}`,
    );
    const short = await captureProcess('echo', { args: ['hi'] });
    expect((await summarizeCapture(short.stdout, { maxBytes: 50 })).content).toBe('hi\n');
  });
});
