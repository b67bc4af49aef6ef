import { spawn } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { utf8Length } from '@wharf/common';
import { generateText, type ModelMessage, stepCountIs, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EvidenceCompiler } from './evidence-compiler.js';
import { evidenceMiddleware } from './evidence-middleware.js';
import { formatSpawnResult } from './format-spawn-result.js';
import { FsArtifactStore } from './fs-artifact-store.js';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** Runs a real process, capturing stdout and stderr into one file; resolves its exit code. */
function capture(script: string, path: string): Promise<{ exitCode: number; durationMs: number }> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    const file = createWriteStream(path);
    child.stdout.pipe(file, { end: false });
    child.stderr.pipe(file, { end: false });
    child.on('error', reject);
    child.on('close', (code) =>
      file.end(() => resolve({ exitCode: code ?? -1, durationMs: Date.now() - started })),
    );
  });
}

describe('supervisor over real worker artifacts', () => {
  let root = '';
  let store: FsArtifactStore;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'wharf-evidence-flow-'));
    store = new FsArtifactStore({ root: join(root, 'artifacts'), spoolDirectories: [join(root, 'spool')] });
    await mkdir(join(root, 'spool'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  async function runWorker(workerId: string, jobId: string, scripts: string[]): Promise<string> {
    await store.putWorker({
      workerId,
      jobId,
      runId: '48',
      ownerId: 'o1',
      status: 'running',
      startedAt: 't0',
    });
    for (const [index, script] of scripts.entries()) {
      const path = join(root, 'spool', `${workerId}-${index}.log`);
      const { exitCode, durationMs } = await capture(script, path);
      await store.putToolCall(
        workerId,
        { seq: index + 1, toolName: 'ssh_exec', exitCode, durationMs, startedAt: 't1', endedAt: 't2' },
        { filePath: path },
      );
    }
    await store.putResult(workerId, '');
    await store.putWorker({
      workerId,
      jobId,
      runId: '48',
      ownerId: 'o1',
      status: 'succeeded',
      startedAt: 't0',
    });
    return formatSpawnResult({
      runId: '48',
      jobId,
      workerId,
      status: 'succeeded',
      durationMs: 1200,
      toolIndex: await store.listToolCalls(workerId),
      summary: await store.getResult(workerId),
    });
  }

  it('answers from a multi-megabyte process log although the worker said nothing, persisting only the payload', async () => {
    const noisy = `for (let i = 0; i < 80000; i++) console.log('scan line ' + i + ' nothing to see here');
      console.log('/dev/sda1 100G 45G 55G 45% /');`;
    const refused = `console.error('ssh: connect to host clifford port 22: Connection refused'); process.exit(255);`;
    let payload = '';
    const spawnWorker = tool({
      description: 'Run a worker.',
      inputSchema: z.object({ task: z.string() }),
      execute: async () => {
        payload = await runWorker('abc-123', '123', [refused, noisy]);
        return payload;
      },
    });
    const base = new MockLanguageModelV4({
      doGenerate: async (options) => {
        if (!options.prompt.some((message) => message.role === 'tool')) {
          return {
            content: [
              { type: 'tool-call', toolCallId: 'c1', toolName: 'spawn_worker', input: '{"task":"df"}' },
            ],
            finishReason: { unified: 'tool-calls', raw: undefined },
            usage,
            warnings: [],
          };
        }
        const seen = JSON.stringify(options.prompt);
        const disk = /\/dev\/sda1 \S+ \S+ \S+ (\d+%)/.exec(seen)?.[1];
        const text = disk ? `Disk is ${disk} full; the first ssh attempt was refused.` : "I couldn't check.";
        return {
          content: [{ type: 'text', text }],
          finishReason: { unified: 'stop', raw: undefined },
          usage,
          warnings: [],
        };
      },
    });
    const model = wrapLanguageModel({
      model: base,
      middleware: evidenceMiddleware({
        compiler: new EvidenceCompiler({ store }),
        runId: '48',
        ownerId: 'o1',
      }),
    });
    const thread: ModelMessage[] = [{ role: 'user', content: 'How full is the disk on clifford?' }];
    const result = await generateText({
      model,
      messages: thread,
      tools: { spawn_worker: spawnWorker },
      stopWhen: stepCountIs(3),
    });
    thread.push(...result.responseMessages);
    const threadFile = join(root, 'thread.jsonl');
    await writeFile(threadFile, thread.map((message) => JSON.stringify(message)).join('\n'));

    expect(result.text).toBe('Disk is 45% full; the first ssh attempt was refused.');
    const calls = await store.listToolCalls('abc-123');
    expect(calls[1]?.bytes).toBeGreaterThan(2_500_000);
    expect(utf8Length(payload)).toBeLessThan(1024);
    expect(payload).toContain('1. ssh_exec [FAILED, exit=255');
    const mounted = JSON.stringify(base.doGenerateCalls[1]?.prompt);
    expect(mounted).toContain('[FAILED] abc-123/tool_calls/001_ssh_exec.txt');
    expect(mounted).toMatch(/\[\.\.\.truncated \d+(\.\d)?MB \(bytes 1024-\d+ not shown\)\.\.\.\]/);
    const persisted = await readFile(threadFile, 'utf8');
    expect(persisted).toContain('[EVIDENCE:run_id=48,job_id=123,worker_id=abc-123]');
    expect(persisted).not.toContain('--- Evidence');
    expect(persisted).not.toContain('scan line');
    expect(utf8Length(persisted)).toBeLessThan(4096);
  });

  it('divides the budget across several workers, failures first, never over it', async () => {
    const ok = (label: string) => `for (let i = 0; i < 3000; i++) console.log('${label} ' + i);`;
    const payloads = [
      await runWorker('w1', '1', [ok('alpha')]),
      await runWorker('w2', '2', [ok('beta'), `console.error('boom'.repeat(2000)); process.exit(3);`]),
      await runWorker('w3', '3', [ok('gamma')]),
    ];
    const compiler = new EvidenceCompiler({ store });
    const report = await compiler.compileWithReport({ runId: '48', ownerId: 'o1', budgetBytes: 9000 });
    expect([...report.evidence.keys()]).toEqual(['1', '2', '3']);
    expect(report.bytesEmitted).toBeLessThanOrEqual(9000);
    expect(report.bytesRead).toBeLessThanOrEqual(9000);
    const sizes = [...report.evidence.values()].map(utf8Length);
    expect(sizes[1]).toBeGreaterThan(sizes[0] ?? 0);
    expect(report.evidence.get('2')).toMatch(
      /\| Priority[^\n]*\n\n\[FAILED\] w2\/tool_calls\/002_ssh_exec\.txt/,
    );
    for (const payload of payloads) expect(utf8Length(payload)).toBeLessThan(1024);
  });
});
