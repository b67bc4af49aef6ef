import { describe, expect, it } from 'vitest';
import { parseSwarm } from './parse-swarm.js';
import { SwarmDefinitionError } from './swarm-definition-error.js';

function issuesOf(text: string) {
  try {
    parseSwarm(text, { source: 'swarm.yaml' });
  } catch (error) {
    if (SwarmDefinitionError.isInstance(error)) return error.issues;
  }
  throw new Error('expected a SwarmDefinitionError');
}

const swarm = (tasks: string) => `name: flow\ntasks:\n${tasks}`;

describe('when, map loops and approval gates in swarm.yaml', () => {
  it('parses all three with their defaults', () => {
    const definition = parseSwarm(
      swarm(`  list:
    script: { content: ls }
    output: †data.list
  each:
    depends_on: [list]
    script: { content: cat }
    when: †data.list.exitCode == 0
    loop: { type: map, over: †data.list.preview, max_concurrency: 2 }
  ship:
    depends_on: [each]
    script: { content: deploy }
    approval: { prompt: Ship it?, timeout: 10m }
`),
    );
    expect(definition.tasks.each?.when).toBe('†data.list.exitCode == 0');
    expect(definition.tasks.each?.loop).toEqual({
      type: 'map',
      over: '†data.list.preview',
      max_concurrency: 2,
    });
    expect(definition.tasks.ship?.approval).toEqual({
      prompt: 'Ship it?',
      timeout: 600_000,
      on_timeout: 'reject',
      on_reject: 'skip',
    });
  });

  it('reports a malformed condition at its line and column', () => {
    const issues = issuesOf(swarm(`  a:\n    script: { content: ls }\n    when: †input.go ==\n`));
    expect(issues).toHaveLength(1);
    expect(issues[0]).toMatchObject({ path: 'tasks.a.when', line: 5, column: 11 });
    expect(issues[0]?.message).toContain('invalid condition at position 13');
  });

  it('checks the references of when and loop.over like inputs', () => {
    const issues = issuesOf(
      swarm(`  a:
    script: { content: ls }
    output: †data.a
  b:
    script: { content: ls }
    when: †data.a.exitCode == 0
    loop: { type: map, over: †data.nobody }
`),
    );
    expect(issues.map((issue) => [issue.path, issue.line])).toEqual([
      ['tasks.b.when', 8],
      ['tasks.b.loop.over', 9],
    ]);
    expect(issues[0]?.message).toContain('which does not run before b: add it to depends_on');
    expect(issues[1]?.message).toContain('no task writes †data.nobody');
    // †input.* can always arrive later, and a literal side of || needs nothing.
    expect(() =>
      parseSwarm(
        swarm(`  a:\n    script: { content: ls }\n    when: †input.go || †data.none == 1 || true\n`),
      ),
    ).not.toThrow();
  });

  it('refuses a count on a map loop and unknown approval fields', () => {
    const issues = issuesOf(
      swarm(`  a:
    script: { content: ls }
    loop: { type: map, over: †input.items, count: 3 }
    approval: { on_timeout: maybe, promt: x }
`),
    );
    expect(issues.map((issue) => issue.path).sort()).toEqual([
      'tasks.a.approval',
      'tasks.a.approval.on_timeout',
      'tasks.a.loop.count',
    ]);
    expect(issues.find((issue) => issue.path === 'tasks.a.loop.count')?.message).toContain(
      'one instance per item of `over`',
    );
    expect(issues.every((issue) => issue.line !== undefined)).toBe(true);
  });

  it('reserves the item and index inputs of a map loop instance', () => {
    const issues = issuesOf(
      swarm(
        `  a:\n    script: { content: ls }\n    loop: { type: map, over: †input.items }\n    inputs: { index: †input.x }\n`,
      ),
    );
    expect(issues).toEqual([
      expect.objectContaining({
        path: 'tasks.a.inputs.index',
        line: 6,
        message: expect.stringContaining('name this input otherwise'),
      }),
    ]);
  });
});
