import {
  EvidenceCompiler,
  evidenceMiddleware,
  formatSpawnResult,
  InMemoryArtifactStore,
} from '@wharf/evidence';
import { generateText, streamText, tool, wrapLanguageModel } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { echoModel } from './echo-model.js';

async function workerWithEvidence(store: InMemoryArtifactStore, jobId: string, output: string) {
  const workerId = `w-${jobId}`;
  await store.putWorker({
    workerId,
    jobId,
    runId: 'run1',
    ownerId: 'o1',
    status: 'succeeded',
    startedAt: 't',
  });
  await store.putToolCall(
    workerId,
    { seq: 1, toolName: 'stdout', exitCode: 0, durationMs: 5, startedAt: 'a', endedAt: 'b' },
    output,
  );
  await store.putResult(workerId, `${jobId} done`);
  return formatSpawnResult({
    runId: 'run1',
    jobId,
    workerId,
    status: 'succeeded',
    durationMs: 5,
    toolIndex: await store.listToolCalls(workerId),
    summary: `${jobId} done`,
  });
}

describe('echoModel', () => {
  it("answers an agent's first call with what it was sent, calls no tool, and ends in one step", async () => {
    const prompt = [
      'Review upgrading the dependency named in `item`.',
      '',
      'Your item (index 0 of 2): yaml',
      '',
      'Inputs: {"reason":"outdated"}',
      '',
      'Outputs of earlier tasks (read one whole with read_input: outdated=out_1, notes=out_2):',
      'Task: outdated …',
      '',
      'IN_REFS (read with read_input): out_1, out_3',
    ].join('\n');
    const noop = tool({ inputSchema: z.object({}), execute: async () => 'never' });
    const result = await generateText({
      model: echoModel(),
      system: 'You review.',
      prompt,
      tools: { shell: noop, emit: noop },
    });
    expect(result.toolCalls).toEqual([]);
    expect(result.finishReason).toBe('stop');
    expect(result.text.split('\n')).toEqual([
      `Echo model (offline): I was sent 2 messages, ${11 + Buffer.byteLength(prompt)} B (system 11 B, user ${Buffer.byteLength(prompt)} B), and 2 tools: emit, shell.`,
      'Task: Review upgrading the dependency named in `item`.',
      'Your item (index 0 of 2): yaml',
      'Inputs: {"reason":"outdated"}',
      'Earlier outputs in my prompt: 2 (outdated, notes)',
      'IN_REFS: 2',
      'I call no tools: an echo answer ends the task in one step.',
    ]);
    expect(result.usage.inputTokens).toBeGreaterThan(0);
    const again = await generateText({
      model: echoModel(),
      system: 'You review.',
      prompt,
      tools: { shell: noop, emit: noop },
    });
    expect(again.text).toBe(result.text);
  });

  it('reports the evidence mounted for each marker, and the markers that were not', async () => {
    const store = new InMemoryArtifactStore();
    const big = await workerWithEvidence(store, 'build', 'compiled 12 files\n');
    const small = await workerWithEvidence(store, 'lint', 'no problems\n');
    const foreign = small.replace('run_id=run1', 'run_id=other');
    const model = wrapLanguageModel({
      model: echoModel(),
      middleware: evidenceMiddleware({
        compiler: new EvidenceCompiler({ store }),
        runId: 'run1',
        ownerId: 'o1',
        budgetBytes: 8_000,
      }),
    });
    const result = await generateText({
      model,
      prompt: `Question: ready?\n\nWorker results (3):\n\n${big}\n\n${small}\n\n${foreign}`,
    });
    const lines = result.text.split('\n');
    expect(lines).toContainEqual(
      expect.stringMatching(/^Evidence markers: 2 \(build, lint\); evidence mounted for 2, \d+ B in all$/),
    );
    expect(lines).toContainEqual(expect.stringMatching(/^ {2}mounted: build \d+ B, lint \d+ B$/));
    expect(lines).toContainEqual('  refused: lint');
  });

  it('streams the same answer', async () => {
    const stream = streamText({ model: echoModel(), prompt: 'hello' });
    expect(await stream.text).toContain('Task: hello');
  });
});
