import { generateText, stepCountIs } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { InMemoryOutputStore } from '../in-memory-output-store.js';
import { createEmitTool } from './emit-tool.js';

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};

describe('createEmitTool', () => {
  it('lets a model hand in its output and answer with the ref only', async () => {
    const store = new InMemoryOutputStore();
    const producer = { ownerId: 'o', runId: 'r', spawnId: 's', agent: 'writer' };
    const body = `# Report\n${'detail '.repeat(500)}`;
    let step = 0;
    const model = new MockLanguageModelV4({
      doGenerate: async () => {
        step += 1;
        if (step === 1) {
          return {
            content: [
              {
                type: 'tool-call',
                toolCallId: 'call-1',
                toolName: 'emit',
                input: JSON.stringify({ content: body, name: 'report.md', contentType: 'text/markdown' }),
              },
            ],
            finishReason: { unified: 'tool-calls', raw: undefined },
            usage,
            warnings: [],
          };
        }
        return {
          content: [{ type: 'text', text: 'done' }],
          finishReason: { unified: 'stop', raw: undefined },
          usage,
          warnings: [],
        };
      },
    });
    const result = await generateText({
      model,
      prompt: 'write the report',
      tools: { emit: createEmitTool({ store, producer, keyPrefix: 'wf-1/act-1' }) },
      stopWhen: stepCountIs(3),
    });
    const toolResult = result.steps[0]?.toolResults[0];
    expect(toolResult?.output).toMatchObject({ sizeBytes: Buffer.byteLength(body) });
    const outId = (toolResult?.output as { outId?: string } | undefined)?.outId ?? '';
    const stored = await store.get({ outId });
    expect(Buffer.from(stored.body).toString()).toBe(body);
    expect(stored.record).toMatchObject({ name: 'report.md', contentType: 'text/markdown', producer });
    expect(result.text).toBe('done');
  });
});
