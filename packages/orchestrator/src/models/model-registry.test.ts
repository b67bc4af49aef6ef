import { MockLanguageModelV4 } from 'ai/test';
import { describe, expect, it } from 'vitest';
import { WharfOrchestratorError } from '../orchestrator-error.js';
import { createModelRegistry } from './model-registry.js';

describe('createModelRegistry', () => {
  it('returns registered models by exact id first', () => {
    const mock = new MockLanguageModelV4();
    const registry = createModelRegistry({ models: { 'mock:echo': mock }, env: {} });
    expect(registry.resolve('mock:echo')).toBe(mock);
    expect(registry.has('mock:echo')).toBe(true);
  });

  it('builds OpenAI and Anthropic models when their keys are present', () => {
    const registry = createModelRegistry({ env: { OPENAI_API_KEY: 'k', ANTHROPIC_API_KEY: 'k' } });
    const openai = registry.resolve('openai:gpt-4o-mini');
    const anthropic = registry.resolve('anthropic:claude-sonnet-4-5');
    expect(openai).toMatchObject({ modelId: 'gpt-4o-mini' });
    expect(anthropic).toMatchObject({ modelId: 'claude-sonnet-4-5' });
    expect(registry.resolve('openai:gpt-4o-mini')).toBe(openai);
  });

  it('names the missing key', () => {
    const registry = createModelRegistry({ env: {} });
    expect(registry.has('openai:gpt-4o-mini')).toBe(false);
    expect(() => registry.resolve('anthropic:claude')).toThrow(/ANTHROPIC_API_KEY/);
  });

  it('parses OpenAI-compatible ids whose model names contain colons', () => {
    const registry = createModelRegistry({ env: {} });
    const model = registry.resolve('openai-compatible:http://127.0.0.1:11434/v1:llama3.1:8b');
    expect(model).toMatchObject({ modelId: 'llama3.1:8b' });
    expect(registry.resolve('openai-compatible:http://localhost:8000:qwen')).toMatchObject({
      modelId: 'qwen',
    });
  });

  it('rejects unknown ids with the accepted forms', () => {
    const registry = createModelRegistry({ env: {} });
    let caught: unknown;
    try {
      registry.resolve('gpt-4');
    } catch (error) {
      caught = error;
    }
    expect(WharfOrchestratorError.isInstance(caught)).toBe(true);
    expect((caught as WharfOrchestratorError).code).toBe('UNKNOWN_MODEL');
    expect((caught as Error).message).toContain('openai-compatible:<base url>:<model>');
  });
});
