import { describe, expect, it } from 'vitest';
import { type SummaryRequest, summarizeOutput } from './summarize.js';

const log = Array.from({ length: 2000 }, (_, index) => `processed file${index}.txt`).join('\n');

describe('summarizeOutput', () => {
  it('renders the summary block with the original size and where it is stored', async () => {
    const requests: SummaryRequest[] = [];
    const result = await summarizeOutput(log, {
      maxBytes: 200,
      storedAt: '.workflow_state/task_outputs/task_123.log',
      taskId: 'task_123',
      summarizer: async (request) => {
        requests.push(request);
        return '  The script processed 2000 files successfully.\n';
      },
    });
    const size = Buffer.byteLength(log);
    expect(result.content).toBe(
      `--- Output Summary (${size} bytes) ---\nThe script processed 2000 files successfully.\n--- [Original output stored in: .workflow_state/task_outputs/task_123.log] ---`,
    );
    expect(result).toMatchObject({ truncated: true, strategy: 'summary', originalBytes: size });
    expect(requests).toEqual([{ content: log, originalBytes: size, maxBytes: 200, taskId: 'task_123' }]);
  });

  it('sends at most maxInputBytes of head and tail to the summarizer', async () => {
    let sent = '';
    await summarizeOutput(log, {
      maxBytes: 100,
      maxInputBytes: 1000,
      summarizer: async ({ content }) => {
        sent = content;
        return 'ok';
      },
    });
    expect(sent.startsWith('--- Output (showing first/last 500 bytes of ')).toBe(true);
    expect(sent.endsWith('processed file1999.txt')).toBe(true);
  });

  it('cuts an over-long summary to maxBytes and notes an unstored original', async () => {
    const result = await summarizeOutput(log, { maxBytes: 10, summarizer: async () => 'é'.repeat(50) });
    expect(result.content.split('\n')[1]).toBe('ééééé');
    expect(result.content.endsWith('--- [Original output not stored] ---')).toBe(true);
  });

  it('falls back to both when no summarizer is configured or it fails', async () => {
    const none = await summarizeOutput(log, { maxBytes: 100 });
    expect(none.strategy).toBe('both');
    expect(none.content).toMatch(/^--- \[No summarizer configured; /);
    const failed = await summarizeOutput(log, {
      maxBytes: 100,
      summarizer: async () => {
        throw new Error('model unavailable');
      },
    });
    expect(failed.content).toMatch(/^--- \[Summary failed: model unavailable; showing first\/last bytes/);
    expect(failed.content).toContain('--- Output (showing first/last 50 bytes of');
  });

  it('returns short output unchanged without calling the summarizer', async () => {
    let called = false;
    const result = await summarizeOutput('short', {
      maxBytes: 100,
      summarizer: async () => {
        called = true;
        return '';
      },
    });
    expect(result).toMatchObject({ content: 'short', truncated: false });
    expect(called).toBe(false);
  });
});
