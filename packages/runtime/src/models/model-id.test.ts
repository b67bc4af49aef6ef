import { describe, expect, it } from 'vitest';
import { ModelError } from './model-error.js';
import { parseModelId } from './model-id.js';

function failure(id: string): ModelError {
  try {
    parseModelId(id);
  } catch (error) {
    if (ModelError.isInstance(error)) return error;
    throw error;
  }
  throw new Error(`${id} parsed`);
}

describe('parseModelId', () => {
  it('reads every provider form', () => {
    expect(parseModelId('openai:gpt-4o-mini')).toEqual({ provider: 'openai', model: 'gpt-4o-mini' });
    expect(parseModelId('anthropic:claude-sonnet-4-5')).toEqual({
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
    });
    expect(parseModelId('openai-compatible:http://127.0.0.1:11434/v1:llama3.1:8b')).toEqual({
      provider: 'openai-compatible',
      baseURL: 'http://127.0.0.1:11434/v1',
      model: 'llama3.1:8b',
    });
    expect(parseModelId('openai-compatible:https://vllm.internal:8000:qwen')).toEqual({
      provider: 'openai-compatible',
      baseURL: 'https://vllm.internal:8000',
      model: 'qwen',
    });
    expect(parseModelId('echo')).toEqual({ provider: 'echo' });
    expect(parseModelId('scripted:examples/models/review.yaml')).toEqual({
      provider: 'scripted',
      file: 'examples/models/review.yaml',
    });
  });

  it('names an unknown provider and lists the known ones', () => {
    const error = failure('gemini:2.5-pro');
    expect(error.code).toBe('UNKNOWN_PROVIDER');
    expect(error.modelId).toBe('gemini:2.5-pro');
    expect(error.message).toContain('unknown provider "gemini"');
    expect(error.message).toContain('openai, anthropic, openai-compatible, echo, scripted');
  });

  it.each([
    ['', 'is empty'],
    ['gpt-4', 'names no provider'],
    ['openai:', 'names no model after "openai:"'],
    ['scripted:', 'names no file'],
    ['echo:loud', 'takes nothing after "echo"'],
    [' echo', 'has spaces around it'],
    ['openai-compatible:localhost:11434:llama', 'is not openai-compatible:<base url>:<model>'],
    ['openai-compatible:http://127.0.0.1:11434/v1', 'is not openai-compatible:<base url>:<model>'],
  ])('refuses %j: %s', (id, why) => {
    const error = failure(id);
    expect(error.code).toBe('INVALID_MODEL_ID');
    expect(error.message).toContain(why);
    expect(error.message).toContain('openai-compatible:<base url>:<model>');
  });
});
