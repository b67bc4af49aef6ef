import { describe, expect, it } from 'vitest';
import { ModelError } from './model-error.js';
import { modelFor, parseModelOverrides } from './model-overrides.js';

function failure(values: string[]): ModelError {
  try {
    parseModelOverrides(values, 'WHARF_MODEL');
  } catch (error) {
    if (ModelError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('parsed');
}

describe('parseModelOverrides', () => {
  it('reads a default and per-agent entries, from repeated values or commas', () => {
    expect(
      parseModelOverrides(
        ['echo', 'supervisor=anthropic:claude-sonnet-4-5,reviewer=scripted:r.yaml'],
        '--model',
      ),
    ).toEqual({
      default: 'echo',
      agents: { supervisor: 'anthropic:claude-sonnet-4-5', reviewer: 'scripted:r.yaml' },
    });
    expect(parseModelOverrides([' '], '--model')).toEqual({ agents: {} });
  });

  it('keeps an = inside a model id that is no agent entry', () => {
    expect(parseModelOverrides(['openai-compatible:http://h:8000/v1?x=y:m'], '--model')).toEqual({
      default: 'openai-compatible:http://h:8000/v1?x=y:m',
      agents: {},
    });
  });

  it('names the variable for a bad id, two defaults, or an agent given twice', () => {
    const bad = failure(['reviewer=gemini:x']);
    expect(bad.code).toBe('UNKNOWN_PROVIDER');
    expect(bad.variable).toBe('WHARF_MODEL');
    expect(bad.message).toMatch(/^WHARF_MODEL: model id "gemini:x": unknown provider/);
    const twice = failure(['echo,openai:gpt-4o-mini']);
    expect(twice.code).toBe('INVALID_MODEL_OVERRIDE');
    expect(twice.message).toContain('two models for every agent ("echo", "openai:gpt-4o-mini")');
    expect(failure(['a=echo', 'a=echo']).message).toContain('agent "a" is given two models');
  });
});

describe('modelFor', () => {
  const overrides = { default: 'echo', agents: { reviewer: 'scripted:r.yaml', supervisor: 'openai:gpt-4o' } };
  it('prefers supervisor= for the supervisor step, then the agent, then the default, then the definition', () => {
    expect(modelFor(overrides, { model: 'm', agent: 'reviewer', supervisor: true })).toBe('openai:gpt-4o');
    expect(modelFor(overrides, { model: 'm', agent: 'reviewer' })).toBe('scripted:r.yaml');
    expect(modelFor(overrides, { model: 'm', agent: 'writer' })).toBe('echo');
    expect(modelFor({ agents: {} }, { model: 'm', agent: 'writer' })).toBe('m');
    expect(
      modelFor({ agents: { reviewer: 'echo' } }, { model: 'm', agent: 'reviewer', supervisor: true }),
    ).toBe('echo');
  });
});
