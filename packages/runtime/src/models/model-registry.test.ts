import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateText } from 'ai';
import { MockLanguageModelV4 } from 'ai/test';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ModelError } from './model-error.js';
import { createModelRegistry } from './model-registry.js';

function failure(run: () => unknown): ModelError {
  try {
    run();
  } catch (error) {
    if (ModelError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('did not fail');
}

describe('createModelRegistry', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-models-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

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
    expect(openai).toMatchObject({ modelId: 'gpt-4o-mini', provider: 'openai.responses' });
    expect(anthropic).toMatchObject({ modelId: 'claude-sonnet-4-5' });
    expect(registry.resolve('openai:gpt-4o-mini')).toBe(openai);
  });

  it('names the missing key only when its model is resolved', () => {
    const registry = createModelRegistry({ env: {} });
    expect(registry.has('echo')).toBe(true);
    expect(registry.has('openai:gpt-4o-mini')).toBe(false);
    const error = failure(() => registry.resolve('anthropic:claude'));
    expect(error.code).toBe('MISSING_MODEL_KEY');
    expect(error.variable).toBe('ANTHROPIC_API_KEY');
    expect(error.message).toContain('model "anthropic:claude" needs ANTHROPIC_API_KEY in the environment');
  });

  it('parses OpenAI-compatible ids whose model names contain colons, with no key needed', () => {
    const registry = createModelRegistry({ env: {} });
    const model = registry.resolve('openai-compatible:http://127.0.0.1:11434/v1:llama3.1:8b');
    expect(model).toMatchObject({ modelId: 'llama3.1:8b' });
    expect(registry.resolve('openai-compatible:http://localhost:8000:qwen')).toMatchObject({
      modelId: 'qwen',
    });
  });

  it('rejects unknown providers and malformed ids, listing registered ids too', () => {
    const registry = createModelRegistry({ env: {}, models: { 'mock:a': new MockLanguageModelV4() } });
    const unknown = failure(() => registry.resolve('gemini:pro'));
    expect(unknown.code).toBe('UNKNOWN_PROVIDER');
    expect(unknown.message).toContain('or a registered id: mock:a');
    const malformed = failure(() => registry.resolve('gpt-4'));
    expect(malformed.code).toBe('INVALID_MODEL_ID');
    expect(malformed.message).toContain('openai-compatible:<base url>:<model>');
  });

  it('ships the offline echo and scripted models; scripted files are read from cwd and again when edited', async () => {
    await writeFile(join(dir, 'one.yaml'), 'replies:\n  - text: first version\n');
    const registry = createModelRegistry({ env: {}, cwd: dir });
    const echo = await generateText({ model: registry.resolve('echo'), prompt: 'hello there' });
    expect(echo.text).toContain('Task: hello there');
    const scripted = await generateText({ model: registry.resolve('scripted:one.yaml'), prompt: 'go' });
    expect(scripted.text).toBe('first version');
    await writeFile(join(dir, 'one.yaml'), 'replies:\n  - text: second version\n');
    const again = await generateText({ model: registry.resolve('scripted:one.yaml'), prompt: 'go' });
    expect(again.text).toBe('second version');
    expect(failure(() => registry.resolve('scripted:missing.yaml')).code).toBe('INVALID_SCRIPTED_MODEL');
  });

  it('answers modelFor only with overrides', () => {
    expect(createModelRegistry({ env: {} }).modelFor).toBeUndefined();
    const registry = createModelRegistry({
      env: {},
      overrides: { default: 'echo', agents: { boss: 'scripted:b.yaml' } },
    });
    expect(registry.modelFor?.({ model: 'openai:gpt-4o', agent: 'worker' })).toBe('echo');
    expect(registry.modelFor?.({ model: 'openai:gpt-4o', agent: 'boss' })).toBe('scripted:b.yaml');
  });
});
