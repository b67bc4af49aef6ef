import { describe, expect, it } from 'vitest';
import { waitThroughOutages } from './await-run.js';
import type { CliIo } from './output.js';

function io(): CliIo & { lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    out: (line: string) => lines.push(line),
    err: (line: string) => lines.push(line),
    isTTY: false,
  };
}

function grpcError(code: number, message: string): Error {
  const cause = Object.assign(new Error(`${code} UNAVAILABLE: ${message}`), { code });
  return new Error('Failed to get Workflow execution history', { cause });
}

describe('waitThroughOutages', () => {
  it('asks again while the server is unavailable, saying so once, and returns the answer', async () => {
    const failures = [grpcError(14, 'shard status unknown'), grpcError(14, 'shard status unknown')];
    const terminal = io();
    const value = await waitThroughOutages(
      async () => {
        const failure = failures.shift();
        if (failure !== undefined) throw failure;
        return 'done';
      },
      { io: terminal, address: '127.0.0.1:7233', signal: new AbortController().signal, retryMs: 1 },
    );
    expect(value).toBe('done');
    expect(terminal.lines).toEqual([
      'wharf: the Temporal server at 127.0.0.1:7233 does not answer (shard status unknown); waiting',
      'wharf: the Temporal server at 127.0.0.1:7233 answers again',
    ]);
  });

  it('throws any other failure at once', async () => {
    const terminal = io();
    await expect(
      waitThroughOutages(
        async () => {
          throw new Error('workflow failed');
        },
        { io: terminal, address: 'a', signal: new AbortController().signal, retryMs: 1 },
      ),
    ).rejects.toThrow('workflow failed');
    expect(terminal.lines).toEqual([]);
  });
});
