import { InMemoryOutputStore, type OutputRef, readBody } from '@wharf/output-store';
import type { EmitToolInput, EmitToolResult } from '@wharf/output-store/ai';
import { describe, expect, it } from 'vitest';
import { agentEmitTool } from './agent-emit-tool.js';

const producer = { ownerId: 'o', runId: 'wf-1', spawnId: 'job-1', agent: 'mock:writer' };

describe('agentEmitTool', () => {
  it("stores each call under the attempt's keys with the task labels, and reports the refs", async () => {
    const store = new InMemoryOutputStore();
    const outputs: OutputRef[] = [];
    const emit = agentEmitTool({
      store,
      producer,
      ids: { emitKeyPrefix: 'wf-1/run-1/act-1' },
      task: 'report',
      attempt: 2,
      onEmit: (ref) => outputs.push(ref),
    });
    const run = async (input: EmitToolInput) =>
      (await emit.execute?.(input, { toolCallId: 'c1', messages: [] } as never)) as EmitToolResult;
    const first = await run({ content: '# Report\n', name: 'report.md' });
    const second = await run({ content: '# Report\n', contentType: 'text/markdown' });
    expect(first).toMatchObject({ sizeBytes: 9 });
    expect(outputs.map((ref) => ref.outId)).toEqual([first.outId, second.outId]);
    const scope = { ownerId: 'o', runId: 'wf-1', spawnId: 'job-1' };
    expect((await store.findByIdempotencyKey(scope, 'wf-1/run-1/act-1/attempt-2/1'))?.outId).toBe(
      second.outId,
    );
    expect(await store.stat({ outId: first.outId })).toMatchObject({
      name: 'report.md',
      contentType: 'text/plain',
      labels: { task: 'report', attempt: '2' },
    });
    expect((await readBody(store, { outId: first.outId })).bytes.toString()).toBe('# Report\n');
  });
});
