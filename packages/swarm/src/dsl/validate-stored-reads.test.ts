import { describe, expect, it } from 'vitest';
import { parseSwarm } from './parse-swarm.js';
import { SwarmDefinitionError } from './swarm-definition-error.js';

function issuesOf(text: string) {
  try {
    parseSwarm(text);
    return [];
  } catch (error) {
    if (SwarmDefinitionError.isInstance(error)) return error.issues;
    throw error;
  }
}

const writers = `name: reads
tasks:
  list: { script: { content: ls }, output: †data.list }
  fan: { loop: { type: repeat, count: 3 }, script: { content: ls }, output: †data.fan }
`;

describe('validateStoredReads (through parseSwarm)', () => {
  it('accepts a map over a task output, its lines, its out ids, a loop’s list, and a loop’s count', () => {
    const text = `${writers}  a:
    depends_on: [list, fan]
    loop: { type: map, over: †data.list, max_items: 500000 }
    inputs: { n: †data.fan.count, all: †data.fan }
    when: †data.fan.count > 2
    script: { content: ls }
  b: { depends_on: [list], loop: { type: map, over: †data.list.preview }, script: { content: ls } }
  c: { depends_on: [list], loop: { type: map, over: †data.list.outIds }, script: { content: ls } }
  d: { depends_on: [fan], loop: { type: map, over: †data.fan }, script: { content: ls } }
`;
    expect(issuesOf(text)).toEqual([]);
    expect(parseSwarm(text).tasks.a?.loop).toMatchObject({ type: 'map', max_items: 500_000 });
  });

  it('refuses at its line and column a map over a field that is no list, or over an object of outputs', () => {
    const issues = issuesOf(`${writers}  a:
    depends_on: [list]
    loop: { type: map, over: †data.list.exitCode }
    script: { content: ls }
  b:
    depends_on: [list, fan]
    loop: { type: map, over: †data }
    script: { content: ls }
`);
    expect(issues.map((issue) => [issue.path, issue.line, issue.column])).toEqual([
      ['tasks.a.loop.over', 7, 30],
      ['tasks.b.loop.over', 11, 30],
    ]);
    expect(issues[0]?.message).toBe(
      "loop.over †data.list.exitCode is a number, not a list: map over †data.list (one instance per line of list's output, or per element when it is a JSON array)",
    );
    expect(issues[1]?.message).toBe(
      'loop.over †data is an object holding †data.list, †data.fan, not a list: map over one of them',
    );
  });

  it('refuses a read inside a loop’s stored list, which never resolves', () => {
    const issues =
      issuesOf(`${writers}  a: { depends_on: [fan], inputs: { first: †data.fan.0.outId }, script: { content: ls } }
`);
    expect(issues).toMatchObject([{ path: 'tasks.a.inputs.first', line: 5, column: 44 }]);
    expect(issues[0]?.message).toContain(
      'reads inside the output of loop fan, which is the stored list of its instances',
    );
  });

  it('refuses max_items below 1', () => {
    expect(
      issuesOf(`${writers}  a: { depends_on: [list], loop: { type: map, over: †data.list, max_items: 0 }, script: { content: ls } }
`),
    ).toMatchObject([{ path: 'tasks.a.loop.max_items' }]);
  });
});
