import { describe, expect, it } from 'vitest';
import { parseSwarm } from './parse-swarm.js';
import { missingSwarmInputs, swarmInputNames } from './swarm-input-names.js';

const definition = parseSwarm(`name: s
tasks:
  a:
    inputs: { v: †input.version, cfg: †input.config.region }
    when: †input.enabled == true
    script: { content: echo }
    output: †data.a
  b:
    depends_on: [a]
    inputs: { who: †input.audience || †input.team, seen: †input.seen || †data.a.preview }
    loop: { type: map, over: †input.items }
    script: { content: echo }
`);

describe('swarmInputNames', () => {
  it('lists every name a swarm reads as †input', () => {
    expect([...swarmInputNames(definition)].sort()).toEqual([
      'audience',
      'config',
      'enabled',
      'items',
      'seen',
      'team',
      'version',
    ]);
  });

  it('is empty for a swarm that reads no input', () => {
    expect(swarmInputNames(parseSwarm('name: s\ntasks:\n  a: { script: { content: echo } }\n')).size).toBe(0);
  });
});

describe('missingSwarmInputs', () => {
  it('lists each expression the passed names leave unresolvable; one side of || is enough', () => {
    expect(missingSwarmInputs(definition, ['version', 'team'])).toEqual([
      { names: ['config'], need: 'all', reader: 'tasks.a.inputs.cfg' },
      { names: ['enabled'], need: 'all', reader: 'tasks.a.when' },
      { names: ['items'], need: 'all', reader: 'tasks.b.loop.over' },
    ]);
    expect(missingSwarmInputs(definition, [])).toContainEqual({
      names: ['audience', 'team'],
      need: 'any',
      reader: 'tasks.b.inputs.who',
    });
    expect(missingSwarmInputs(definition, ['version', 'config', 'enabled', 'items', 'audience'])).toEqual([]);
  });
});
