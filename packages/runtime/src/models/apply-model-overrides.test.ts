import { parseSwarm } from '@wharf/swarm';
import { describe, expect, it } from 'vitest';
import { applyModelOverrides } from './apply-model-overrides.js';
import { ModelError } from './model-error.js';
import { parseModelOverrides } from './model-overrides.js';

const yaml = [
  'name: review',
  'agents:',
  '  reviewer: { model: "openai:gpt-4o-mini" }',
  '  writer: { model: "anthropic:claude-sonnet-4-5" }',
  'tasks:',
  '  check: { agent: reviewer }',
  '  write: { agent: writer, depends_on: [check] }',
  'supervisor: { agent: reviewer, question: Ready? }',
].join('\n');

const apply = (values: string[], text = yaml) =>
  applyModelOverrides(parseSwarm(text), parseModelOverrides(values, '--model'), '--model');

describe('applyModelOverrides', () => {
  it('gives every agent the default, and per-agent entries win', () => {
    const definition = apply(['echo', 'writer=scripted:w.yaml']);
    expect(definition.agents.reviewer?.model).toBe('echo');
    expect(definition.agents.writer?.model).toBe('scripted:w.yaml');
    expect(definition.supervisor?.agent).toBe('reviewer');
  });

  it('gives the supervisor step a copy of its agent when that agent also runs tasks', () => {
    const definition = apply(['echo', 'supervisor=anthropic:claude-opus-4-1']);
    expect(definition.agents.reviewer?.model).toBe('echo');
    expect(definition.supervisor?.agent).toBe('supervisor');
    expect(definition.agents.supervisor).toMatchObject({ model: 'anthropic:claude-opus-4-1' });
  });

  it('changes the supervisor agent in place when nothing else runs it', () => {
    const text = yaml.replace('  check: { agent: reviewer }', '  check: { agent: writer }');
    const definition = apply(['supervisor=echo'], text);
    expect(definition.supervisor?.agent).toBe('reviewer');
    expect(definition.agents.reviewer?.model).toBe('echo');
    expect(Object.keys(definition.agents)).toEqual(['reviewer', 'writer']);
  });

  it('refuses an agent the swarm does not have, with the near names', () => {
    let caught: unknown;
    try {
      apply(['reviwer=echo']);
    } catch (error) {
      caught = error;
    }
    expect(ModelError.isInstance(caught)).toBe(true);
    expect((caught as ModelError).code).toBe('INVALID_MODEL_OVERRIDE');
    expect((caught as ModelError).message).toBe(
      '--model: swarm review has no agent "reviwer" (did you mean "reviewer"?)',
    );
  });
});
