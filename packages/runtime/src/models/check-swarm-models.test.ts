import { loadSwarmTree, parseSwarm } from '@wharf/swarm';
import { describe, expect, it } from 'vitest';
import { checkSwarmModels } from './check-swarm-models.js';
import { createModelRegistry } from './model-registry.js';

describe('checkSwarmModels', () => {
  const text = [
    'name: s',
    'agents:',
    '  a: { model: "openai:gpt-4o-mini" }',
    '  b: { model: "gemini:pro" }',
    '  idle: { model: "anthropic:claude" }',
    'tasks:',
    '  one: { agent: a }',
    '  two: { agent: b }',
  ].join('\n');

  it('lists each used agent whose model cannot be built here, not the idle ones', () => {
    const problems = checkSwarmModels(parseSwarm(text), createModelRegistry({ env: {} }));
    expect(problems.map((problem) => [problem.path, problem.error.code, problem.error.variable])).toEqual([
      ['agents.a.model', 'MISSING_MODEL_KEY', 'OPENAI_API_KEY'],
      ['agents.b.model', 'UNKNOWN_PROVIDER', undefined],
    ]);
  });

  it('checks every agent once one may spawn workers, and honours the registry overrides', () => {
    const spawning = text.replace(
      'a: { model: "openai:gpt-4o-mini" }',
      'a: { model: "echo", tools: [spawn_worker] }',
    );
    const problems = checkSwarmModels(parseSwarm(spawning), createModelRegistry({ env: {} }));
    expect(problems.map((problem) => problem.agent)).toEqual(['b', 'idle']);
    const overridden = createModelRegistry({ env: {}, overrides: { default: 'echo', agents: {} } });
    expect(checkSwarmModels(parseSwarm(spawning), overridden)).toEqual([]);
  });

  it('checks the swarms its swarm: tasks run, under the task path', async () => {
    const tree = await loadSwarmTree(
      { source: 'parent.yaml', text: 'name: p\ntasks:\n  nested: { swarm: ./c.yaml }\n' },
      { read: async () => ({ source: 'c.yaml', text }) },
    );
    const problems = checkSwarmModels(tree, createModelRegistry({ env: {} }));
    expect(problems.map((problem) => problem.path)).toEqual([
      'tasks.nested.swarm(./c.yaml).agents.a.model',
      'tasks.nested.swarm(./c.yaml).agents.b.model',
    ]);
  });
});
