import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { createAiSummarizer } from './ai.js';
import { summarizeOutput } from './summarize.js';

function mockModel(text: string) {
  return new MockLanguageModelV4({
    doGenerate: async () => ({
      content: [{ type: 'text', text }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: {
        inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
        outputTokens: { total: 5, text: 5, reasoning: 0 },
      },
      warnings: [],
    }),
  });
}

describe('createAiSummarizer', () => {
  it('sends the output with instructions and the byte budget, and returns the model text', async () => {
    const model = mockModel('All 3 tests passed.');
    const summarizer = createAiSummarizer({ model, maxOutputTokens: 100 });
    const output = 'test a ... ok\ntest b ... ok\ntest c ... ok\n'.repeat(50);
    const result = await summarizeOutput(output, {
      maxBytes: 300,
      summarizer,
      taskId: 'unit_tests',
      storedAt: '/tmp/unit_tests.log',
    });
    expect(result.content).toBe(
      `--- Output Summary (${output.length} bytes) ---\nAll 3 tests passed.\n--- [Original output stored in: /tmp/unit_tests.log] ---`,
    );
    expect(model.doGenerateCalls).toHaveLength(1);
    const call = model.doGenerateCalls[0];
    expect(call?.maxOutputTokens).toBe(100);
    const [system, user] = call?.prompt ?? [];
    expect(system?.role).toBe('system');
    expect(system?.content).toContain('Stay under 300 bytes.');
    expect(user?.role).toBe('user');
    const text =
      user?.role === 'user'
        ? user.content.map((part) => (part.type === 'text' ? part.text : '')).join('')
        : '';
    expect(text.startsWith(`Output of task unit_tests (${output.length} bytes in full):\n\n`)).toBe(true);
    expect(text).toContain('test c ... ok');
  });

  it('uses custom instructions', async () => {
    const model = mockModel('short');
    await createAiSummarizer({ model, instructions: 'Be terse.' })({
      content: 'x',
      originalBytes: 1,
      maxBytes: 10,
    });
    expect(model.doGenerateCalls[0]?.prompt[0]?.content).toBe('Be terse. Stay under 10 bytes.');
  });
});
