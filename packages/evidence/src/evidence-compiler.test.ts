import { utf8Length } from '@wharf/common';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ByteRange, ToolCallInput, WorkerMetadata } from './artifact-store.js';
import { EvidenceCompiler } from './evidence-compiler.js';
import { EvidenceError } from './evidence-error.js';
import { InMemoryArtifactStore } from './in-memory-artifact-store.js';

const worker = (jobId: string, overrides: Partial<WorkerMetadata> = {}): WorkerMetadata => ({
  workerId: `w-${jobId}`,
  jobId,
  runId: '48',
  ownerId: 'o1',
  status: 'succeeded',
  startedAt: '2026-01-18T10:00:00.000Z',
  ...overrides,
});

const call = (seq: number, overrides: Partial<ToolCallInput> = {}): ToolCallInput => ({
  seq,
  toolName: 'ssh_exec',
  exitCode: 0,
  durationMs: 100 + seq,
  startedAt: 'a',
  endedAt: 'b',
  ...overrides,
});

function numbered(lines: number, prefix = 'line'): string {
  return Array.from({ length: lines }, (_, index) => `${prefix} ${String(index).padStart(6, '0')}\n`).join(
    '',
  );
}

describe('EvidenceCompiler', () => {
  it('gives one worker the whole budget and shows small outputs whole, failures first', async () => {
    const store = new InMemoryArtifactStore();
    await store.putWorker(worker('123', { workerId: 'abc-123' }));
    await store.putToolCall('abc-123', call(1), 'Filesystem Size Used\n/dev/sda1 100G 45G\n');
    await store.putToolCall(
      'abc-123',
      call(2, { exitCode: 1 }),
      'ssh: connect to host clifford port 22: Connection refused\n',
    );
    const evidence = await new EvidenceCompiler({ store }).compile({ runId: '48', ownerId: 'o1' });
    const text = evidence.get('123') ?? '';
    expect([...evidence.keys()]).toEqual(['123']);
    expect(text.startsWith('--- Evidence for Worker 123 (abc-123) ---\n')).toBe(true);
    expect(text).toMatch(/Budget: \d+ B of 31KB \| 2 of 2 outputs shown \| Priority: failures first/);
    expect(text).toContain(
      '[FAILED] abc-123/tool_calls/002_ssh_exec.txt (58 B, exit=1, 102ms):\nssh: connect',
    );
    expect(text).toContain('abc-123/tool_calls/001_ssh_exec.txt (40 B, exit=0, 101ms):\nFilesystem');
    expect(text.indexOf('[FAILED]')).toBeLessThan(text.indexOf('001_ssh_exec'));
    expect(text.endsWith('--- End Evidence ---')).toBe(true);
  });

  it('cuts a large output into an exact 1 KB head and a tail, stating the cut offsets', async () => {
    const store = new InMemoryArtifactStore();
    await store.putWorker(worker('1'));
    const body = numbered(10_000);
    await store.putToolCall('w-1', call(1), body);
    const report = await new EvidenceCompiler({ store }).compileWithReport({
      runId: '48',
      ownerId: 'o1',
      budgetBytes: 8000,
    });
    const text = report.evidence.get('1') ?? '';
    const match = /showing head (\d+) B \+ tail (\d+) B\):\n/.exec(text);
    expect(match).not.toBeNull();
    const head = Number(match?.[1]);
    const tail = Number(match?.[2]);
    expect(head).toBe(1024);
    const size = body.length;
    const marker = `\n[...truncated ${Math.round((size - head - tail) / 1024)}KB (bytes ${head}-${size - tail} not shown)...]\n`;
    const contentStart = (match?.index ?? 0) + (match?.[0].length ?? 0);
    expect(text.slice(contentStart, contentStart + head)).toBe(body.slice(0, head));
    expect(text.slice(contentStart + head, contentStart + head + marker.length)).toBe(marker);
    expect(text.slice(contentStart + head + marker.length)).toBe(
      `${body.slice(size - tail)}\n--- End Evidence ---`,
    );
    expect(utf8Length(text)).toBeLessThanOrEqual(8000);
    expect(tail).toBeGreaterThan(6000);
    expect(report.bytesRead).toBe(head + tail);
  });

  it('prefers failures, then the most recent outputs, when the budget is tight', async () => {
    const store = new InMemoryArtifactStore();
    await store.putWorker(worker('1'));
    for (let seq = 1; seq <= 10; seq++) {
      await store.putToolCall('w-1', call(seq, { exitCode: seq === 3 ? 2 : 0 }), numbered(200, `out${seq}`));
    }
    const text =
      (await new EvidenceCompiler({ store }).compile({ runId: '48', ownerId: 'o1', budgetBytes: 3000 })).get(
        '1',
      ) ?? '';
    const shown = [...text.matchAll(/tool_calls\/(\d{3})_/g)].map((match) => Number(match[1]));
    expect(shown[0]).toBe(3);
    expect(shown.slice(1)).toEqual([10, 9, 8, 7, 6, 5, 4, 2, 1].slice(0, shown.length - 1));
    expect(shown.length).toBeLessThan(10);
    expect(text).toContain(`(${10 - shown.length} more outputs not shown`);
    expect(utf8Length(text)).toBeLessThanOrEqual(3000);
  });

  it('shares the budget among workers, giving failing workers more and small workers only what they need', async () => {
    const store = new InMemoryArtifactStore();
    for (const jobId of ['1', '2', '3']) await store.putWorker(worker(jobId));
    await store.putToolCall('w-1', call(1), numbered(5000));
    await store.putToolCall('w-2', call(1, { exitCode: 1 }), numbered(5000));
    await store.putToolCall('w-3', call(1), 'tiny\n');
    const report = await new EvidenceCompiler({ store }).compileWithReport({
      runId: '48',
      ownerId: 'o1',
      budgetBytes: 12_000,
    });
    const sizes = ['1', '2', '3'].map((jobId) => utf8Length(report.evidence.get(jobId) ?? ''));
    expect(report.evidence.get('3')).toContain('tiny\n');
    expect(sizes[1]).toBeGreaterThan((sizes[0] ?? 0) * 1.5);
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBeLessThanOrEqual(12_000);
    expect(report.bytesEmitted).toBe(sizes.reduce((sum, size) => sum + size, 0));
  });

  it('shows every one of 50 busy workers its most important output at the default budget', async () => {
    const store = new InMemoryArtifactStore();
    for (let index = 1; index <= 50; index++) {
      await store.putWorker(worker(String(index)));
      for (let seq = 1; seq <= 20; seq++) {
        await store.putToolCall(
          `w-${index}`,
          call(seq, { exitCode: seq === 7 ? 1 : 0 }),
          numbered(300, `w${index}c${seq}`),
        );
      }
    }
    const report = await new EvidenceCompiler({ store }).compileWithReport({ runId: '48', ownerId: 'o1' });
    expect(report.evidence.size).toBe(50);
    for (const text of report.evidence.values()) {
      expect(text).toMatch(/\| 1 of 20 outputs shown \|/);
      expect(text).toMatch(/\[FAILED\] w-\d+\/tool_calls\/007_ssh_exec\.txt .*showing tail \d+ B\):\n/);
    }
    expect(report.bytesEmitted).toBeLessThanOrEqual(32_000);
    expect(report.bytesEmitted).toBeGreaterThan(28_000);
    expect(report.bytesRead).toBeGreaterThan(50 * 100);
  });

  it('is deterministic and scoped to the owner, run and requested jobs', async () => {
    const store = new InMemoryArtifactStore();
    await store.putWorker(worker('1'));
    await store.putWorker(worker('2'));
    await store.putWorker(worker('9', { ownerId: 'o2' }));
    await store.putToolCall('w-1', call(1), numbered(3000));
    await store.putToolCall('w-2', call(1, { exitCode: 4 }), numbered(3000));
    const compiler = new EvidenceCompiler({ store });
    const first = await compiler.compile({ runId: '48', ownerId: 'o1', budgetBytes: 5000 });
    const second = await compiler.compile({ runId: '48', ownerId: 'o1', budgetBytes: 5000 });
    expect(second).toEqual(first);
    expect([...first.keys()]).toEqual(['1', '2']);
    expect([...(await compiler.compile({ runId: '48', ownerId: 'o1', jobIds: ['2'] })).keys()]).toEqual([
      '2',
    ]);
    expect((await compiler.compile({ runId: '48', ownerId: 'o3' })).size).toBe(0);
    expect((await compiler.compile({ runId: '49', ownerId: 'o1' })).size).toBe(0);
  });

  it('keeps multi-byte text whole at both cuts', async () => {
    const store = new InMemoryArtifactStore();
    await store.putWorker(worker('1'));
    await store.putToolCall('w-1', call(1), '€'.repeat(3000) + '🚀'.repeat(3000));
    const text =
      (await new EvidenceCompiler({ store }).compile({ runId: '48', ownerId: 'o1', budgetBytes: 4001 })).get(
        '1',
      ) ?? '';
    expect(text).not.toContain('\uFFFD');
    expect(text).not.toContain('?');
    expect(text).toMatch(/€+\n\[\.\.\.truncated/);
    expect(text).toMatch(/not shown\)\.\.\.\]\n(🚀)+\n\n--- End/);
    expect(utf8Length(text)).toBeLessThanOrEqual(4001);
  });

  it('degrades an output collected after listing to a notice', async () => {
    class ForgetfulStore extends InMemoryArtifactStore {
      override async readToolOutput(workerId: string, seq: number, range?: ByteRange): Promise<Uint8Array> {
        if (seq === 2) throw new EvidenceError('ARTIFACT_NOT_FOUND', 'collected');
        return super.readToolOutput(workerId, seq, range);
      }
    }
    const store = new ForgetfulStore();
    await store.putWorker(worker('1'));
    await store.putToolCall('w-1', call(1), 'still here');
    await store.putToolCall('w-1', call(2), 'gone soon');
    const text =
      (await new EvidenceCompiler({ store }).compile({ runId: '48', ownerId: 'o1' })).get('1') ?? '';
    expect(text).toContain('002_ssh_exec.txt (9 B, exit=0, 102ms):\n(output no longer available)');
    expect(text).toContain('still here');
  });

  it('says so when a worker recorded no tool calls, and when the budget is too small', async () => {
    const store = new InMemoryArtifactStore();
    await store.putWorker(worker('1'));
    const compiler = new EvidenceCompiler({ store });
    expect((await compiler.compile({ runId: '48', ownerId: 'o1' })).get('1')).toContain(
      '(no tool calls recorded)',
    );
    const tiny = (await compiler.compile({ runId: '48', ownerId: 'o1', budgetBytes: 20 })).get('1') ?? '';
    expect(utf8Length(tiny)).toBeLessThanOrEqual(20);
    expect((await compiler.compile({ runId: '48', ownerId: 'o1', budgetBytes: 0 })).get('1')).toBe('');
    await expect(compiler.compile({ runId: '48', ownerId: 'o1', budgetBytes: -1 })).rejects.toMatchObject({
      code: 'INVALID_OPTIONS',
    });
  });

  it('at 1,000 workers x 20 calls under 32 KB shows failures first and rolls up the rest, within budget', async () => {
    const store = new InMemoryArtifactStore();
    const failing = new Set([17, 230, 451, 612, 998]);
    for (let index = 0; index < 1000; index++) {
      const jobId = String(index);
      await store.putWorker(worker(jobId, { status: failing.has(index) ? 'failed' : 'succeeded' }));
      for (let seq = 1; seq <= 20; seq++) {
        const failed = failing.has(index) && seq === 20;
        const size = index === 500 && seq === 3 ? 9000 : 300;
        await store.putToolCall(
          `w-${jobId}`,
          call(seq, { exitCode: failed ? 2 : 0 }),
          numbered(size / 12, `j${jobId}`),
        );
      }
    }
    const budgetBytes = 32_000;
    const report = await new EvidenceCompiler({ store }).compileWithReport({
      runId: '48',
      ownerId: 'o1',
      budgetBytes,
    });
    const texts = [...report.evidence.values()];
    expect(texts.reduce((sum, text) => sum + utf8Length(text), 0)).toBeLessThanOrEqual(budgetBytes);
    expect(report.bytesEmitted).toBeLessThanOrEqual(budgetBytes);
    expect(report.evidence.size).toBe(1000);
    expect(report.outputsShown).toBeGreaterThan(0);
    expect(report.outputsShown + report.outputsOmitted).toBe(20_000);
    // Every failing worker is shown, its failed output among the first.
    for (const index of failing) {
      const text = report.evidence.get(String(index)) ?? '';
      expect(text).toContain(`--- Evidence for Worker ${index} (w-${index}) ---`);
      expect(text).toContain(`[FAILED] w-${index}/tool_calls/020_ssh_exec.txt`);
    }
    const shown = texts.filter((text) => text.startsWith('--- Evidence for Worker'));
    expect(shown.length).toBeGreaterThan(failing.size);
    // One roll-up line, in budget, for the workers that did not fit.
    const rollups = texts.flatMap((text) =>
      text.split('\n').filter((line) => line.startsWith('[evidence roll-up:')),
    );
    expect(rollups).toHaveLength(1);
    const rollup = rollups[0] ?? '';
    const omittedWorkers = 1000 - shown.length;
    expect(rollup).toContain(`${omittedWorkers} of 1000 workers not shown`);
    expect(rollup).toContain(`(${omittedWorkers} succeeded)`);
    expect(rollup).toContain(`${omittedWorkers * 20} outputs`);
    expect(rollup).toContain('w-500/tool_calls/003_ssh_exec.txt (8.8KB');
    expect(rollup).toMatch(/get_worker_evidence\(job_id\).*get_tool_output\(artifact_id\)/);
    expect(report.rollup).toBe(rollup);
  }, 60_000);

  it('never exceeds the budget and never reads more than it could emit (property)', async () => {
    const output = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 3000 }),
      fc.string({ unit: 'binary', maxLength: 6000 }),
      fc.uint8Array({ maxLength: 9000 }),
    );
    const workerSpec = fc.array(fc.record({ output, exitCode: fc.constantFrom(0, 1, null) }), {
      maxLength: 6,
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(workerSpec, { minLength: 1, maxLength: 5 }),
        fc.nat(40_000),
        async (workers, budget) => {
          const store = new InMemoryArtifactStore();
          for (const [index, calls] of workers.entries()) {
            await store.putWorker(worker(String(index + 1)));
            for (const [seq, spec] of calls.entries()) {
              await store.putToolCall(
                `w-${index + 1}`,
                call(seq + 1, { exitCode: spec.exitCode }),
                spec.output,
              );
            }
          }
          const report = await new EvidenceCompiler({ store }).compileWithReport({
            runId: '48',
            ownerId: 'o1',
            budgetBytes: budget,
          });
          let total = 0;
          for (const text of report.evidence.values()) total += utf8Length(text);
          expect(total).toBeLessThanOrEqual(budget);
          expect(report.bytesRead).toBeLessThanOrEqual(budget);
          expect(report.evidence.size).toBe(workers.length);
        },
      ),
      { numRuns: 60 },
    );
    // 60 compiles of up to 5 workers x 6 outputs of up to 9 KB: seconds on a loaded machine.
  }, 60_000);

  it('when workers do not all fit, shows failing ones first and one roll-up, within budget (property)', async () => {
    const workerSpec = fc.array(
      fc.record({ size: fc.nat(3000), exitCode: fc.constantFrom(0, 0, 0, 1, null) }),
      { maxLength: 4 },
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(workerSpec, { minLength: 1, maxLength: 30 }),
        fc.nat(8000),
        async (workers, budget) => {
          const store = new InMemoryArtifactStore();
          for (const [index, calls] of workers.entries()) {
            await store.putWorker(worker(String(index + 1)));
            for (const [seq, spec] of calls.entries())
              await store.putToolCall(
                `w-${index + 1}`,
                call(seq + 1, { exitCode: spec.exitCode }),
                'y'.repeat(spec.size),
              );
          }
          const report = await new EvidenceCompiler({ store }).compileWithReport({
            runId: '48',
            ownerId: 'o1',
            budgetBytes: budget,
          });
          const texts = [...report.evidence.values()];
          expect(texts.reduce((sum, text) => sum + utf8Length(text), 0)).toBeLessThanOrEqual(budget);
          expect(report.bytesRead).toBeLessThanOrEqual(budget);
          expect(report.evidence.size).toBe(workers.length);
          const shown = workers.map((_, index) =>
            (report.evidence.get(String(index + 1)) ?? '').startsWith('--- Evidence'),
          );
          const failing = workers.map((calls) => calls.some((spec) => spec.exitCode === 1));
          const rollups = texts
            .join('\n')
            .split('\n')
            .filter((line) => line.startsWith('[evidence roll-up:'));
          if (shown.every(Boolean)) expect(report.rollup).toBeUndefined();
          else if (budget >= 640) expect(rollups).toHaveLength(1);
          // Failures first: a quiet worker is shown only when every failing one is.
          if (shown.some((isShown, index) => isShown && !failing[index]))
            expect(failing.every((isFailing, index) => !isFailing || shown[index])).toBe(true);
        },
      ),
      { numRuns: 40 },
    );
  }, 60_000);
});
