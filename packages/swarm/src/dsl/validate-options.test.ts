import { describe, expect, it } from 'vitest';
import { parseSwarm, validateSwarm } from './parse-swarm.js';
import { SwarmDefinitionError } from './swarm-definition-error.js';

function issuesOf(text: string) {
  try {
    parseSwarm(text, { source: 'swarm.yaml' });
  } catch (error) {
    if (SwarmDefinitionError.isInstance(error)) return error.issues;
    throw error;
  }
  throw new Error('expected a SwarmDefinitionError');
}

const channels = `name: c
channels:
  findings: { type: topic }
  latest: { type: last_value }
  gate: { type: named_barrier, expected: [a] }
tasks:
`;

describe('validateOptions: user channels', () => {
  it('accepts tasks writing and reading declared channels', () => {
    const definition = parseSwarm(`${channels}  a:
    script: { content: echo a }
    output: †channels.findings
  b:
    depends_on: [a]
    script: { content: echo b }
    inputs: { all: †channels.findings }
    output: †channels.latest
  c:
    depends_on: [b]
    script: { content: echo c }
    output: †channels.latest || †data.error
`);
    expect(Object.keys(definition.channels)).toEqual(['findings', 'latest', 'gate']);
  });

  it('names an undeclared channel, with a suggestion, at its line and column', () => {
    const issues = issuesOf(`${channels}  a:
    script: { content: echo a }
    output: †channels.finding
  b:
    depends_on: [a]
    script: { content: echo b }
    inputs: { all: †channels.nope }
`);
    expect(issues).toContainEqual(
      expect.objectContaining({
        path: 'tasks.a.output',
        line: 9,
        message: expect.stringContaining('"findings"'),
      }),
    );
    expect(issues).toContainEqual(
      expect.objectContaining({
        path: 'tasks.b.inputs.all',
        message: expect.stringContaining('unknown channel "nope"'),
      }),
    );
    expect(issues.every((issue) => issue.line !== undefined && issue.column !== undefined)).toBe(true);
  });

  it('refuses a path inside a channel, a write method, and a named barrier writer it does not expect', () => {
    const issues = issuesOf(`${channels}  a:
    script: { content: echo a }
    output: †channels.findings.x
  b:
    script: { content: echo b }
    output: { path: †channels.findings, method: push }
  c:
    script: { content: echo c }
    output: †channels.gate
`);
    expect(issues.map((issue) => issue.path).sort()).toEqual([
      'tasks.a.output',
      'tasks.b.output.method',
      'tasks.c.output',
    ]);
    expect(issues.find((issue) => issue.path === 'tasks.c.output')?.message).toContain('named_barrier');
  });

  it('refuses last_value writers that may run in the same step, and looped ones', () => {
    const issues = issuesOf(`${channels}  a:
    script: { content: echo a }
    output: †channels.latest
  b:
    script: { content: echo b }
    output: †channels.latest
  c:
    loop: { type: repeat, count: 2 }
    depends_on: [a, b]
    script: { content: echo c }
    output: †channels.latest
`);
    expect(issues.map((issue) => issue.message)).toEqual([
      expect.stringContaining('loop instances of c'),
      expect.stringContaining('a and b may run in the same step'),
    ]);
  });
});

describe('validateOptions: many writers of one last_value channel', () => {
  /** A chain of `count` tasks, each writing the channel; `loose` depends on nothing. */
  function chain(count: number, loose?: string): Record<string, unknown> {
    const tasks: Record<string, unknown> = {};
    for (let index = 0; index < count; index++) {
      tasks[`t${index}`] = {
        script: { content: 'echo' },
        depends_on: index === 0 || `t${index}` === loose ? [] : [`t${index - 1}`],
        output: '†channels.latest',
      };
    }
    return { name: 'c', channels: { latest: { type: 'last_value' } }, tasks };
  }

  it('accepts 5,000 writers that run one after another', () => {
    expect(Object.keys(validateSwarm(chain(5_000)).tasks)).toHaveLength(5_000);
  });

  it('names each writer that may run in the same step as the one that does not wait', () => {
    let error: unknown;
    try {
      validateSwarm(chain(3, 't2'));
    } catch (caught) {
      error = caught;
    }
    expect(SwarmDefinitionError.isInstance(error)).toBe(true);
    expect((error as SwarmDefinitionError).issues.map((issue) => issue.message)).toEqual([
      expect.stringContaining('t0 and t2 may run in the same step'),
      expect.stringContaining('t1 and t2 may run in the same step'),
    ]);
  });
});

describe('validateOptions: map loops', () => {
  it('counts a map loop as many writers of a last_value channel', () => {
    const issues = issuesOf(`${channels}  list:
    script: { content: ls }
    output: †data.files
  each:
    depends_on: [list]
    loop: { type: map, over: †data.files.preview }
    script: { content: echo }
    output: †channels.latest
`);
    expect(issues.map((issue) => issue.message)).toEqual([expect.stringContaining('loop instances of each')]);
  });
});

describe('validateOptions: compress_external', () => {
  it('refuses compress_external at swarm and task level, naming line and column', () => {
    const issues = issuesOf(`name: c
limits:
  compress_external: true
tasks:
  a:
    script: { content: echo a }
    limits: { compress_external: true }
`);
    expect(issues).toEqual([
      expect.objectContaining({ path: 'limits.compress_external', line: 3, column: 22 }),
      expect.objectContaining({ path: 'tasks.a.limits.compress_external', line: 7 }),
    ]);
    expect(issues[0]?.message).toContain('output store');
  });

  it('accepts compress_external: false', () => {
    expect(() =>
      parseSwarm(
        'name: c\nlimits: { compress_external: false }\ntasks:\n  a:\n    script: { content: echo }\n',
      ),
    ).not.toThrow();
  });
});

describe('validateOptions: cleanup_strategy', () => {
  it('takes it at swarm level and refuses it on a task, at its line and column', () => {
    expect(
      parseSwarm(
        'name: c\nlimits:\n  cleanup_strategy: { type: lru, keep_count: 5 }\ntasks:\n  a:\n    script: { content: echo }\n',
      ).limits?.cleanup_strategy,
    ).toEqual({ type: 'lru', keep_count: 5 });
    const issues = issuesOf(
      'name: c\ntasks:\n  a:\n    script: { content: echo }\n    limits:\n      cleanup_strategy: { type: direct_dependencies }\n',
    );
    expect(issues).toEqual([
      expect.objectContaining({
        path: 'tasks.a.limits.cleanup_strategy',
        line: 6,
        message: expect.stringContaining("swarm's `limits`"),
      }),
    ]);
  });
});
