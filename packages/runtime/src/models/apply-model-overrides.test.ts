import { childSwarm, loadSwarmTree, parseSwarm, type TaskDefinition } from '@wharf/swarm';
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

  it('applies to the swarms its swarm: tasks run: the default, and the named agents they have', async () => {
    const child =
      'name: child\nagents:\n  writer: { model: "openai:gpt-4o" }\n  other: { model: "openai:gpt-4o" }\ntasks:\n  w: { agent: writer }\n  o: { agent: other }\n';
    const parent = `${yaml}\n  nested: { swarm: ./child.yaml }`.replace(
      'supervisor: { agent: reviewer, question: Ready? }\n',
      '',
    );
    const tree = await loadSwarmTree(
      { source: 'parent.yaml', text: parent },
      { read: async () => ({ source: 'child.yaml', text: child }) },
    );
    const definition = applyModelOverrides(
      tree,
      parseModelOverrides(['echo', 'writer=scripted:w.yaml'], '--model'),
      '--model',
    );
    const nested = childSwarm(definition.tasks.nested as TaskDefinition);
    expect(nested?.agents.writer?.model).toBe('scripted:w.yaml');
    expect(nested?.agents.other?.model).toBe('echo');
    expect(childSwarm(tree.tasks.nested as TaskDefinition)?.agents.other?.model).toBe('openai:gpt-4o');
  });
});
