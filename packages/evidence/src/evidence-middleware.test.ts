import { generateText, type ModelMessage, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai';
import { MockLanguageModelV4, simulateReadableStream } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { EvidenceCompiler } from './evidence-compiler.js';
import { evidenceMiddleware } from './evidence-middleware.js';
import { formatSpawnResult } from './format-spawn-result.js';
import { InMemoryArtifactStore } from './in-memory-artifact-store.js';

type CallOptions = MockLanguageModelV4['doGenerateCalls'][number];

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

/** Every text the model was shown, flattened. */
function promptText(options: CallOptions): string {
  return JSON.stringify(options.prompt);
}

/** A supervisor stand-in that answers only from what it was actually sent. */
function echoAnswer(options: CallOptions): string {
  const seen = promptText(options);
  const match = /\/dev\/sda1[^\\]*?(\d+%)/.exec(seen);
  return match ? `Disk on clifford is ${match[1]} full.` : "I couldn't check the disk.";
}

const DF_OUTPUT =
  'Filesystem      Size  Used Avail Use% Mounted on\n/dev/sda1       100G   45G   55G  45% /\n';

async function storeWithWorker() {
  const store = new InMemoryArtifactStore();
  await store.putWorker({
    workerId: 'abc-123',
    jobId: '123',
    runId: '48',
    ownerId: 'o1',
    status: 'succeeded',
    startedAt: 't',
  });
  await store.putToolCall(
    'abc-123',
    { seq: 1, toolName: 'ssh_exec', exitCode: 0, durationMs: 234, startedAt: 'a', endedAt: 'b' },
    `${'noise\n'.repeat(2000)}${DF_OUTPUT}`,
  );
  await store.putResult('abc-123', '');
  return store;
}

function deepFreeze<TValue>(value: TValue): TValue {
  if (typeof value === 'object' && value !== null) {
    for (const child of Object.values(value)) deepFreeze(child);
    Object.freeze(value);
  }
  return value;
}

describe('evidenceMiddleware', () => {
  it('mounts evidence into what the model receives while the caller keeps only the marker', async () => {
    const store = await storeWithWorker();
    const compiler = new EvidenceCompiler({ store });
    const payload = formatSpawnResult({
      runId: '48',
      jobId: '123',
      workerId: 'abc-123',
      status: 'succeeded',
      durationMs: 45_200,
      toolIndex: await store.listToolCalls('abc-123'),
      summary: await store.getResult('abc-123'),
    });
    const history: ModelMessage[] = deepFreeze([
      { role: 'user', content: 'How full is the disk on clifford?' },
      {
        role: 'assistant',
        content: [
          { type: 'tool-call', toolCallId: 'c1', toolName: 'spawn_worker', input: { task: 'df -h' } },
        ],
      },
      {
        role: 'tool',
        content: [
          {
            type: 'tool-result',
            toolCallId: 'c1',
            toolName: 'spawn_worker',
            output: { type: 'text', value: payload },
          },
        ],
      },
    ]);
    const snapshot = structuredClone(history);
    const base = new MockLanguageModelV4({
      doGenerate: async (options) => ({
        content: [{ type: 'text', text: echoAnswer(options) }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage,
        warnings: [],
      }),
    });
    const model = wrapLanguageModel({
      model: base,
      middleware: evidenceMiddleware({ compiler, runId: '48', ownerId: 'o1', budgetBytes: 8000 }),
    });
    const result = await generateText({ model, messages: history });

    const received = promptText(base.doGenerateCalls[0] as CallOptions);
    expect(received).toContain('--- Evidence for Worker 123 (abc-123) ---');
    expect(received).toContain('45% /');
    expect(result.text).toBe('Disk on clifford is 45% full.');
    expect(history).toEqual(snapshot);
    expect(JSON.stringify(history)).not.toContain('--- Evidence');
    expect(JSON.stringify(result.responseMessages)).not.toContain('--- Evidence');
    expect(JSON.stringify(result.responseMessages)).not.toContain('/dev/sda1');
  });

  it('regression: worker final message empty; the supervisor still answers from mounted evidence in the tool loop', async () => {
    const store = await storeWithWorker();
    const compiler = new EvidenceCompiler({ store });
    const spawnWorker = tool({
      description: 'Run a worker and wait for it.',
      inputSchema: z.object({ task: z.string() }),
      execute: async () =>
        formatSpawnResult({
          runId: '48',
          jobId: '123',
          workerId: 'abc-123',
          status: 'succeeded',
          durationMs: 45_200,
          toolIndex: await store.listToolCalls('abc-123'),
          summary: await store.getResult('abc-123'),
        }),
    });
    const supervisor = () =>
      new MockLanguageModelV4({
        doGenerate: async (options) => {
          const hasToolResult = options.prompt.some((message) => message.role === 'tool');
          if (!hasToolResult) {
            return {
              content: [
                {
                  type: 'tool-call',
                  toolCallId: 'c1',
                  toolName: 'spawn_worker',
                  input: '{"task":"df -h on clifford"}',
                },
              ],
              finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
              usage,
              warnings: [],
            };
          }
          return {
            content: [{ type: 'text', text: echoAnswer(options) }],
            finishReason: { unified: 'stop', raw: 'stop' },
            usage,
            warnings: [],
          };
        },
      });
    const run = async (mounted: boolean) => {
      const base = supervisor();
      const model = mounted
        ? wrapLanguageModel({
            model: base,
            middleware: evidenceMiddleware({ compiler, runId: '48', ownerId: 'o1' }),
          })
        : base;
      const messages: ModelMessage[] = [{ role: 'user', content: 'How full is the disk on clifford?' }];
      const result = await generateText({
        model,
        messages,
        tools: { spawn_worker: spawnWorker },
        stopWhen: stepCountIs(3),
      });
      return { base, result, messages };
    };

    const without = await run(false);
    expect(without.result.text).toBe("I couldn't check the disk.");

    const { base, result, messages } = await run(true);
    expect(base.doGenerateCalls).toHaveLength(2);
    expect(promptText(base.doGenerateCalls[0] as CallOptions)).not.toContain('--- Evidence');
    expect(promptText(base.doGenerateCalls[1] as CallOptions)).toContain('--- Evidence for Worker 123');
    expect(result.text).toBe('Disk on clifford is 45% full.');

    const persisted = JSON.stringify(result.responseMessages);
    expect(persisted).toContain('[EVIDENCE:run_id=48,job_id=123,worker_id=abc-123]');
    expect(persisted).toContain('Summary: (the worker left no final message)');
    expect(persisted).not.toContain('--- Evidence');
    expect(persisted).not.toContain('/dev/sda1');
    expect(messages).toEqual([{ role: 'user', content: 'How full is the disk on clifford?' }]);
  });

  it("refuses another owner's marker inside the model call", async () => {
    const store = await storeWithWorker();
    const base = new MockLanguageModelV4({
      doGenerate: async (options) => ({
        content: [{ type: 'text', text: echoAnswer(options) }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage,
        warnings: [],
      }),
    });
    const model = wrapLanguageModel({
      model: base,
      middleware: evidenceMiddleware({
        compiler: new EvidenceCompiler({ store }),
        runId: '48',
        ownerId: 'intruder',
      }),
    });
    const result = await generateText({
      model,
      messages: [{ role: 'user', content: 'Summarise [EVIDENCE:run_id=48,job_id=123,worker_id=abc-123]' }],
    });
    const received = promptText(base.doGenerateCalls[0] as CallOptions);
    expect(received).toContain('evidence refused for job 123: the worker belongs to another owner');
    expect(received).not.toContain('/dev/sda1');
    expect(result.text).toBe("I couldn't check the disk.");
  });

  it('mounts evidence for streaming calls too', async () => {
    const store = await storeWithWorker();
    const base = new MockLanguageModelV4({
      doStream: async (options) => ({
        stream: simulateReadableStream({
          chunks: [
            { type: 'stream-start', warnings: [] },
            { type: 'text-start', id: 't' },
            { type: 'text-delta', id: 't', delta: echoAnswer(options) },
            { type: 'text-end', id: 't' },
            { type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage },
          ],
        }),
      }),
    });
    const model = wrapLanguageModel({
      model: base,
      middleware: evidenceMiddleware({
        compiler: new EvidenceCompiler({ store }),
        runId: '48',
        ownerId: 'o1',
      }),
    });
    const result = streamText({
      model,
      messages: [{ role: 'user', content: 'How full? [EVIDENCE:run_id=48,job_id=123,worker_id=abc-123]' }],
    });
    expect(await result.text).toBe('Disk on clifford is 45% full.');
    expect(JSON.stringify(base.doStreamCalls[0]?.prompt)).toContain('--- Evidence for Worker 123');
  });
});
