import { generateText, isStepCount, streamText, tool } from 'ai';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ModelError } from './model-error.js';
import { scriptedModel } from './scripted-model.js';

const echoTool = tool({
  inputSchema: z.object({ word: z.string() }),
  execute: async ({ word }) => `heard ${word}`,
});

describe('scriptedModel', () => {
  it('replays its steps per conversation, tool calls first, and can read what the tools returned', async () => {
    const model = scriptedModel([
      { text: 'calling', toolCalls: [{ toolName: 'say', input: { word: 'hi' } }] },
      (prompt) => ({ text: `the tool said: ${JSON.stringify(prompt.at(-1)?.content)}` }),
    ]);
    const result = await generateText({
      model,
      prompt: 'go',
      tools: { say: echoTool },
      stopWhen: isStepCount(5),
    });
    expect(result.steps).toHaveLength(2);
    expect(result.steps[0]?.toolCalls[0]).toMatchObject({
      toolCallId: 'call-0-0',
      toolName: 'say',
      input: { word: 'hi' },
    });
    expect(result.text).toContain('heard hi');
    // A new conversation starts again at the first step.
    const again = await generateText({ model, prompt: 'go', tools: { say: echoTool } });
    expect(again.toolCalls[0]?.toolName).toBe('say');
  });

  it('reports the usage it is given, and streams the same reply', async () => {
    const model = scriptedModel([{ text: 'done', usage: { inputTokens: 7, outputTokens: 3 } }]);
    const result = await generateText({ model, prompt: 'go' });
    expect(result.usage).toMatchObject({ inputTokens: 7, outputTokens: 3 });
    expect(await streamText({ model, prompt: 'go' }).text).toBe('done');
  });

  it('fails with INVALID_SCRIPTED_MODEL when a conversation outlasts its replies, unless afterLast says', async () => {
    const model = scriptedModel([{ toolCalls: [{ toolName: 'say', input: { word: 'a' } }] }], {
      name: 'loop.yaml',
    });
    let caught: unknown;
    try {
      await generateText({
        model,
        prompt: 'go',
        tools: { say: echoTool },
        stopWhen: isStepCount(3),
        maxRetries: 0,
      });
    } catch (error) {
      caught = error;
    }
    expect(ModelError.isInstance(caught)).toBe(true);
    expect((caught as ModelError).message).toContain(
      'scripted model loop.yaml has 1 reply; this conversation asks for reply 2',
    );
    const ending = scriptedModel([{ toolCalls: [{ toolName: 'say', input: { word: 'a' } }] }], {
      afterLast: { text: 'done' },
    });
    const result = await generateText({
      model: ending,
      prompt: 'go',
      tools: { say: echoTool },
      stopWhen: isStepCount(3),
    });
    expect(result.text).toBe('done');
  });
});
