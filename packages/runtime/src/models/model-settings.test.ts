import { describe, expect, it } from 'vitest';
import { ModelError } from './model-error.js';
import { createModelRegistry } from './model-registry.js';
import { modelSettingsFromEnv, registrySummarizer } from './model-settings.js';

describe('modelSettingsFromEnv', () => {
  it('reads WHARF_MODEL and WHARF_SUMMARIZER; the summarizer follows the default model', () => {
    expect(modelSettingsFromEnv({})).toEqual({});
    expect(modelSettingsFromEnv({ WHARF_MODEL: '', WHARF_SUMMARIZER: ' ' })).toEqual({});
    expect(modelSettingsFromEnv({ WHARF_MODEL: 'echo' })).toEqual({
      overrides: { default: 'echo', agents: {} },
      summarizer: 'echo',
    });
    expect(
      modelSettingsFromEnv({ WHARF_MODEL: 'boss=echo', WHARF_SUMMARIZER: 'anthropic:claude-haiku-4-5' }),
    ).toEqual({
      overrides: { agents: { boss: 'echo' } },
      summarizer: 'anthropic:claude-haiku-4-5',
    });
  });

  it('names the variable of a malformed id', () => {
    for (const [env, variable] of [
      [{ WHARF_MODEL: 'gpt-4' }, 'WHARF_MODEL'],
      [{ WHARF_SUMMARIZER: 'nope:x' }, 'WHARF_SUMMARIZER'],
    ] as const) {
      let caught: unknown;
      try {
        modelSettingsFromEnv(env);
      } catch (error) {
        caught = error;
      }
      expect(ModelError.isInstance(caught)).toBe(true);
      expect((caught as ModelError).variable).toBe(variable);
      expect((caught as ModelError).message.startsWith(`${variable}: `)).toBe(true);
    }
  });
});

describe('registrySummarizer', () => {
  it('resolves its model when first used, so a missing key surfaces in the summary, not at start', async () => {
    const models = createModelRegistry({ env: {} });
    const missing = registrySummarizer(models, 'openai:gpt-4o-mini');
    await expect(missing({ content: 'log', originalBytes: 3, maxBytes: 100 })).rejects.toThrow(
      /OPENAI_API_KEY/,
    );
    const echo = registrySummarizer(models, 'echo');
    expect(await echo({ content: 'line one', originalBytes: 8, maxBytes: 100, taskId: 'build' })).toContain(
      'Task: Output of task build (8 bytes in full):',
    );
  });
});
