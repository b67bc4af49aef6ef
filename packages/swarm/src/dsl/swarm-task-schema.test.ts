import { describe, expect, it } from 'vitest';
import { parseSwarm } from './parse-swarm.js';
import { SwarmDefinitionError } from './swarm-definition-error.js';

function issuesOf(text: string) {
  try {
    parseSwarm(text, { source: 'parent.yaml' });
  } catch (error) {
    if (SwarmDefinitionError.isInstance(error)) return error.issues;
  }
  throw new Error('expected a SwarmDefinitionError');
}

describe('swarm: tasks', () => {
  const parent = `name: parent
tasks:
  pick:
    script: { content: echo 2.4.0 }
    output: †data.version
  notes:
    depends_on: [pick]
    when: †data.version.exitCode == 0
    swarm: ./child.yaml
    inputs: { version: †data.version.preview, audience: operators, retries: 2, strict: true }
`;

  it('reads a swarm task: references stay inputs, literal values go to swarm_inputs', () => {
    const definition = parseSwarm(parent);
    expect(definition.tasks.notes).toMatchObject({
      swarm: './child.yaml',
      depends_on: ['pick'],
      when: '†data.version.exitCode == 0',
      inputs: { version: '†data.version.preview' },
      swarm_inputs: { audience: 'operators', retries: 2, strict: true },
    });
  });

  it('reads its own read form again the same', () => {
    const definition = parseSwarm(parent);
    const again = parseSwarm(JSON.stringify(definition));
    expect(again.tasks.notes).toEqual(definition.tasks.notes);
  });

  it('takes literal inputs on swarm tasks only, at their line and column', () => {
    const issues = issuesOf('name: x\ntasks:\n  a:\n    script: { content: echo }\n    inputs: { n: 2 }\n');
    expect(issues).toEqual([
      {
        path: 'tasks.a.inputs.n',
        message: 'must be a †reference (only a `swarm:` task takes literal values)',
        line: 5,
        column: 18,
      },
    ]);
  });

  it('refuses a loop on a swarm task', () => {
    const issues = issuesOf(
      'name: x\ntasks:\n  a:\n    swarm: ./b.yaml\n    loop: { type: repeat, count: 2 }\n',
    );
    expect(issues).toEqual([
      {
        path: 'tasks.a.loop',
        message: 'a `swarm:` task runs its swarm once: it takes no `loop`',
        line: 5,
        column: 11,
      },
    ]);
  });

  it('checks a swarm task’s references as any task’s', () => {
    const issues = issuesOf('name: x\ntasks:\n  a:\n    swarm: ./b.yaml\n    inputs: { v: †data.nobody }\n');
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ path: 'tasks.a.inputs.v', line: 5, column: 18 });
  });
});
