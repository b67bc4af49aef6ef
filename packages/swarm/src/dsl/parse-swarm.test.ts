import { describe, expect, it } from 'vitest';
import { parseSwarm, validateSwarm } from './parse-swarm.js';
import { SwarmDefinitionError } from './swarm-definition-error.js';
import { SwarmDefinitionTooLargeError } from './swarm-definition-too-large-error.js';
import { defaultSwarmSizeLimits } from './swarm-size-limits.js';
import { ancestorsOf, findCycle } from './validate-graph.js';

function issuesOf(text: string) {
  try {
    parseSwarm(text, { source: 'swarm.yaml' });
  } catch (error) {
    if (SwarmDefinitionError.isInstance(error)) return error;
  }
  throw new Error('expected a SwarmDefinitionError');
}

const valid = `
name: repo-health
version: 1.0.0
agents:
  reviewer:
    model: openai:gpt-4o-mini
tasks:
  fetch:
    script:
      content: git ls-files
    output: †data.files
  count:
    depends_on: [fetch]
    loop: { type: repeat, count: 3 }
    script:
      content: wc -l
    inputs:
      files: †data.files
  review:
    agent: reviewer
    prompt: Summarise the repository
    depends_on: [count]
supervisor:
  agent: reviewer
  question: Is the repository healthy?
`;

describe('parseSwarm', () => {
  it('parses a valid definition and applies defaults', () => {
    const definition = parseSwarm(valid);
    expect(definition.name).toBe('repo-health');
    expect(definition.version).toBe('1.0.0');
    expect(Object.keys(definition.tasks)).toEqual(['fetch', 'count', 'review']);
    expect(definition.tasks.fetch?.depends_on).toEqual([]);
    expect(definition.tasks.fetch?.inject_context).toBe(true);
    expect(definition.tasks.fetch?.script?.shell).toBe('bash');
    expect(definition.tasks.count?.loop).toEqual({ type: 'repeat', count: 3 });
    expect(definition.agents.reviewer?.max_steps).toBe(8);
    expect(definition.supervisor?.evidence_budget_bytes).toBe(32_000);
  });

  it('takes on_failure: fail or complete, absent by default, and names a bad value', () => {
    expect(parseSwarm(valid).on_failure).toBeUndefined();
    expect(parseSwarm(`${valid}on_failure: complete\n`).on_failure).toBe('complete');
    expect(parseSwarm(`${valid}on_failure: fail\n`).on_failure).toBe('fail');
    const error = issuesOf(`${valid}on_failure: ignore\n`);
    expect(error.code).toBe('INVALID_DEFINITION');
    expect(error.issues.map((issue) => issue.path)).toEqual(['on_failure']);
    expect(error.issues[0]?.message).toContain('complete');
  });

  it('reports YAML syntax errors with line and column', () => {
    const error = issuesOf('name: x\ntasks:\n  a: [unclosed\n');
    expect(error.code).toBe('INVALID_DEFINITION');
    expect(error.issues[0]?.message).toMatch(/^YAML:/);
    expect(error.issues[0]?.line).toBeGreaterThanOrEqual(3);
    expect(error.message).toContain('swarm.yaml');
  });

  it('names the field path, line and column of a schema violation', () => {
    const error = issuesOf(
      'name: x\ntasks:\n  a:\n    script:\n      content: echo\n    loop: { type: repeat, count: 0 }\n',
    );
    const issue = error.issues.find((candidate) => candidate.path === 'tasks.a.loop.count');
    expect(issue).toBeDefined();
    expect(issue?.line).toBe(6);
    expect(issue?.column).toBeGreaterThan(1);
  });

  it("takes a script's env of variable names and literal values, and names a bad name", () => {
    const script = (env: string) =>
      `name: x\ntasks:\n  a:\n    script:\n      content: env\n      env: ${env}\n`;
    expect(parseSwarm(script('{ STAGE: test, TOKEN_2: "$HOME" }')).tasks.a?.script?.env).toEqual({
      STAGE: 'test',
      TOKEN_2: '$HOME',
    });
    const error = issuesOf(script('{ "BAD NAME": x, "2X": y }'));
    expect(error.issues.map((issue) => issue.message).join('\n')).toMatch(/must be a variable name/);
    expect(error.issues[0]?.line).toBe(6);
  });

  it('rejects unknown fields by name', () => {
    const error = issuesOf('name: x\ntasks:\n  a:\n    scirpt:\n      content: echo\n');
    expect(error.issues.some((issue) => issue.message.includes('scirpt'))).toBe(true);
  });

  it('requires script, agent or swarm, only one of them', () => {
    expect(issuesOf('name: x\ntasks:\n  a:\n    description: nothing\n').issues[0]?.message).toBe(
      'a task needs `script`, `agent` or `swarm`',
    );
    const swarmAndScript = issuesOf(
      'name: x\ntasks:\n  a:\n    swarm: ./b.yaml\n    script: { content: echo }\n',
    );
    expect(swarmAndScript.issues[0]).toMatchObject({
      path: 'tasks.a.swarm',
      message: expect.stringMatching(/not both `script` and `swarm`/),
      line: 4,
      column: 12,
    });
    const both = issuesOf(
      'name: x\nagents: { r: { model: m } }\ntasks:\n  a:\n    agent: r\n    script: { content: echo }\n',
    );
    expect(both.issues[0]?.message).toMatch(/not both/);
  });

  it('reports unknown dependencies at their position', () => {
    const error = issuesOf('name: x\ntasks:\n  a:\n    script: { content: echo }\n    depends_on: [b]\n');
    expect(error.issues).toHaveLength(1);
    expect(error.issues[0]).toMatchObject({ path: 'tasks.a.depends_on[0]', line: 5 });
    expect(error.issues[0]?.message).toContain('unknown task "b"');
  });

  it('reports dependency cycles with the loop spelled out', () => {
    const error = issuesOf(
      'name: x\ntasks:\n  a: { script: { content: echo }, depends_on: [c] }\n  b: { script: { content: echo }, depends_on: [a] }\n  c: { script: { content: echo }, depends_on: [b] }\n',
    );
    expect(error.issues[0]?.message).toBe('dependency cycle: a → c → b → a');
  });

  it('reports unknown agents for tasks and the supervisor', () => {
    const error = issuesOf(
      'name: x\ntasks:\n  a: { agent: ghost }\nsupervisor: { agent: nobody, question: ok? }\n',
    );
    expect(error.issues.map((issue) => issue.path).sort()).toEqual(['supervisor.agent', 'tasks.a.agent']);
  });

  it('collects every problem at once', () => {
    const error = issuesOf('tasks:\n  a: { script: { content: "" }, depends_on: [zz] }\n');
    expect(error.issues.length).toBeGreaterThanOrEqual(2);
  });
});

describe('validateSwarm', () => {
  it('validates plain objects with the same rules', () => {
    expect(
      validateSwarm({ name: 'x', tasks: { a: { script: { content: 'echo' } } } }).tasks.a?.inputs,
    ).toEqual({});
    expect(() => validateSwarm({ name: 'x', tasks: {} })).toThrow(/at least one task/);
  });
});

describe('graph helpers', () => {
  const tasks = { a: { depends_on: [] }, b: { depends_on: ['a'] }, c: { depends_on: ['b', 'a'] } };
  it('finds ancestors transitively', () => {
    expect([...ancestorsOf(tasks, 'c')].sort()).toEqual(['a', 'b']);
    expect(ancestorsOf(tasks, 'a').size).toBe(0);
  });
  it('finds no cycle in a DAG', () => {
    expect(findCycle(tasks)).toBeUndefined();
  });
});

describe('limits', () => {
  it('accepts the stdio-limits block at workflow and task level', () => {
    const definition = parseSwarm(
      'name: x\nlimits: { max_stdout_bytes: 4096, truncation_strategy: both }\ntasks:\n  a:\n    script: { content: echo }\n    limits: { max_stdout_bytes: 2097152 }\n',
    );
    expect(definition.limits).toMatchObject({ max_stdout_bytes: 4096, truncation_strategy: 'both' });
    expect(definition.tasks.a?.limits).toMatchObject({ max_stdout_bytes: 2097152 });
  });

  it('rejects bad limits with the field path and position', () => {
    const error = issuesOf(
      'name: x\ntasks:\n  a:\n    script: { content: echo }\n    limits: { max_stdout_bytes: -1, truncation: tail }\n',
    );
    const paths = error.issues.map((issue) => issue.path);
    expect(paths).toContain('tasks.a.limits.max_stdout_bytes');
    expect(error.issues.find((issue) => issue.path === 'tasks.a.limits.max_stdout_bytes')?.line).toBe(5);
    expect(error.issues.some((issue) => issue.message.includes('truncation'))).toBe(true);
  });
});

describe('† references', () => {
  const base = 'name: x\ntasks:\n  fetch:\n    script: { content: echo }\n    output: †data.fetch\n';

  it('accepts references written by an ancestor, and †input.* always', () => {
    const definition = parseSwarm(
      `${base}  use:\n    depends_on: [fetch]\n    inputs: { a: †data.fetch.outId, b: †input.target }\n    script: { content: echo }\n`,
    );
    expect(definition.tasks.use?.inputs).toEqual({ a: '†data.fetch.outId', b: '†input.target' });
  });

  it('rejects a reference whose writer does not run before the reader', () => {
    const error = issuesOf(
      `${base}  use:\n    inputs: { a: †data.fetch.outId }\n    script: { content: echo }\n`,
    );
    expect(error.issues[0]).toMatchObject({ path: 'tasks.use.inputs.a', line: 7 });
    expect(error.issues[0]?.message).toBe(
      '†data.fetch.outId is written by fetch, which does not run before use: add it to depends_on',
    );
  });

  it('rejects a reference nobody writes, unless a || fallback can resolve', () => {
    const missing = issuesOf(
      `${base}  use:\n    depends_on: [fetch]\n    inputs: { a: †data.nothing }\n    script: { content: echo }\n`,
    );
    expect(missing.issues[0]?.message).toMatch(/^no task writes †data\.nothing/);
    expect(() =>
      parseSwarm(
        `${base}  use:\n    depends_on: [fetch]\n    inputs: { a: †data.nothing || †data.fetch }\n    script: { content: echo }\n`,
      ),
    ).not.toThrow();
  });

  it('reports malformed expressions with their position', () => {
    const error = issuesOf(
      `${base}  use:\n    depends_on: [fetch]\n    inputs: { a: "†data.fetch ||" }\n    script: { content: echo }\n`,
    );
    expect(error.issues[0]?.path).toBe('tasks.use.inputs.a');
    expect(error.issues[0]?.message).toMatch(/position|expected/i);
  });
});

describe('size limits', () => {
  const oneTask = 'name: x\ntasks:\n  a: { script: { content: echo } }\n';
  function tooLarge(run: () => unknown): SwarmDefinitionTooLargeError {
    try {
      run();
    } catch (error) {
      if (SwarmDefinitionTooLargeError.isInstance(error)) return error;
      throw error;
    }
    throw new Error('expected a SwarmDefinitionTooLargeError');
  }

  it('documents its defaults', () => {
    expect(defaultSwarmSizeLimits).toEqual({
      maxBytes: 4 * 1024 * 1024,
      maxTasks: 20_000,
      maxAliasNodes: 10_000,
      maxDepth: 64,
    });
  });

  it('counts the size in UTF-8 bytes as encoded, lone surrogates included', () => {
    const text = `${oneTask}# ${'\uD800€'.repeat(1_000)}\n`;
    const size = new TextEncoder().encode(text).length;
    expect(() =>
      parseSwarm(text, { sizeLimits: { ...defaultSwarmSizeLimits, maxBytes: size } }),
    ).not.toThrow();
    expect(() => parseSwarm(text, { sizeLimits: { ...defaultSwarmSizeLimits, maxBytes: size - 1 } })).toThrow(
      SwarmDefinitionTooLargeError,
    );
  });

  it('rejects YAML over maxBytes before parsing it, with a typed error', () => {
    const text = `${oneTask}# ${'x'.repeat(defaultSwarmSizeLimits.maxBytes)}\n`;
    const error = tooLarge(() => parseSwarm(text, { source: 'big.yaml' }));
    expect(error.code).toBe('DEFINITION_TOO_LARGE');
    expect(error).toMatchObject({
      limit: 'maxBytes',
      max: defaultSwarmSizeLimits.maxBytes,
      source: 'big.yaml',
    });
    expect(error.actual).toBe(Buffer.byteLength(text));
    expect(error.message).toMatch(
      /^big\.yaml is too large: \d+ bytes, more than the limit of 4194304 \(maxBytes\)$/,
    );
    expect(SwarmDefinitionError.isInstance(error)).toBe(false);
  });

  it('rejects more tasks than maxTasks, in YAML and in objects; both limits are configurable', () => {
    const threeTasks = `${oneTask}  b: { script: { content: echo } }\n  c: { script: { content: echo } }\n`;
    const error = tooLarge(() => parseSwarm(threeTasks, { sizeLimits: { maxTasks: 2 } }));
    expect(error).toMatchObject({ limit: 'maxTasks', max: 2, actual: 3 });
    expect(error.message).toBe(
      'the swarm definition is too large: 3 tasks, more than the limit of 2 (maxTasks)',
    );
    const tasks = Object.fromEntries(
      Array.from({ length: defaultSwarmSizeLimits.maxTasks + 1 }, (_, index) => [
        `t${index}`,
        { script: { content: 'echo' } },
      ]),
    );
    expect(tooLarge(() => validateSwarm({ name: 'x', tasks })).limit).toBe('maxTasks');
    expect(tooLarge(() => parseSwarm(oneTask, { sizeLimits: { maxBytes: 10 } })).limit).toBe('maxBytes');
    expect(parseSwarm(threeTasks, { sizeLimits: { maxTasks: 3, maxBytes: 1_000 } }).name).toBe('x');
  });
});

describe('deep YAML', () => {
  const task = 'name: deep\ntasks:\n  a:\n    script: { content: ls }\n';

  it('refuses flow collections nested past maxDepth at the first one too deep, without a stack overflow', () => {
    for (const depth of [65, 5_000, 1_000_000]) {
      const error = issuesOf(`${task}    env: ${'['.repeat(depth)}${']'.repeat(depth)}\n`);
      expect(error.issues).toEqual([
        {
          path: '',
          message: 'YAML: collections nested more than 64 deep (maxDepth), here at depth 65',
          line: 5,
          // The root, tasks' and a's mappings are three levels: the 62nd bracket is the 65th.
          column: 10 + 61,
        },
      ]);
    }
  });

  it('refuses block mappings nested past maxDepth at the line of the first one too deep', () => {
    const lines = Array.from({ length: 1_500 }, (_, level) => `${' '.repeat(6 + level)}k:`);
    const error = issuesOf(`${task}    meta:\n${lines.join('\n')} v\n`);
    expect(error.issues).toHaveLength(1);
    expect(error.issues[0]?.message).toMatch(/^YAML: collections nested more than 64 deep \(maxDepth\)/);
    // The root (1), tasks' (2) and a's (3) mappings: meta's, at line 6, is level 4.
    expect(error.issues[0]?.line).toBe(6 + 61);
  });

  it('takes nesting up to the limit to the schema, and the limit is configurable', () => {
    const nested = (depth: number) => `${task}    env: ${'['.repeat(depth)}${']'.repeat(depth)}\n`;
    expect(issuesOf(nested(61)).issues[0]?.message).toBe('unknown field(s): env');
    const error = (() => {
      try {
        parseSwarm(nested(10), { sizeLimits: { maxDepth: 8 } });
      } catch (caught) {
        return caught as SwarmDefinitionError;
      }
      throw new Error('expected a SwarmDefinitionError');
    })();
    expect(error.issues[0]?.message).toContain('more than 8 deep (maxDepth)');
  });

  it('still reports a second document as a YAML issue', () => {
    expect(issuesOf(`${task}---\nname: other\n`).issues[0]?.message).toMatch(
      /^YAML: Source contains multiple documents/,
    );
  });
});

describe('YAML aliases', () => {
  it('rejects an alias bomb with the alias position instead of expanding it', () => {
    const bomb = [
      'name: bomb',
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]',
      'e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]',
      'tasks:',
      '  a: { script: { content: echo } }',
    ].join('\n');
    const error = issuesOf(bomb);
    expect(error.issues).toHaveLength(1);
    expect(error.issues[0]?.message).toMatch(
      /^YAML: aliases expand to more than 10000 nodes \(maxAliasNodes\)/,
    );
    expect(error.issues[0]?.line).toBe(5);
    expect(error.issues[0]?.column).toBeGreaterThan(1);
  });

  it('still accepts ordinary anchors and aliases', () => {
    const definition = parseSwarm(
      'name: x\nagents:\n  r: &agent { model: m }\n  s: *agent\ntasks:\n  a: { agent: r }\n  b: { agent: s }\n',
    );
    expect(definition.agents.s?.model).toBe('m');
  });

  it('reports an alias to a missing anchor as a YAML error with its position', () => {
    const error = issuesOf('name: x\ntasks:\n  a: { script: { content: echo }, depends_on: *nope }\n');
    expect(error.issues[0]?.message).toMatch(/^YAML: .*nope/);
    expect(error.issues[0]?.line).toBe(3);
  });
});

describe('every kind of problem in one report', () => {
  it('reports schema and graph problems together', () => {
    const error = issuesOf(
      'name: x\ntasks:\n  a:\n    script: { content: echo }\n    loop: { type: repeat, count: 0 }\n    depends_on: [ghost]\n  b:\n    script: { content: echo }\n    inputs: { p: †data.nobody }\n',
    );
    expect(error.issues.map((issue) => issue.path).sort()).toEqual([
      'tasks.a.depends_on[0]',
      'tasks.a.loop.count',
      'tasks.b.inputs.p',
    ]);
  });

  it('does not repeat a graph problem for a field the schema already rejects', () => {
    const error = issuesOf('name: x\ntasks:\n  a:\n    script: { content: echo }\n    depends_on: [9bad]\n');
    expect(error.issues.map((issue) => issue.path)).toEqual(['tasks.a.depends_on[0]']);
  });

  it('reports a repeated key at its position', () => {
    const error = issuesOf(
      'name: x\ntasks:\n  a: { script: { content: echo } }\n  a: { script: { content: echo } }\n',
    );
    expect(error.issues).toEqual([
      { path: '', message: 'YAML: Map keys must be unique', line: 4, column: 3 },
    ]);
  });

  it('reports every YAML syntax error, not only the first', () => {
    const error = issuesOf('name: x\ntasks:\n  a: [unclosed\n  b: "open\n');
    expect(error.issues.length).toBeGreaterThanOrEqual(2);
    expect(error.issues.every((issue) => issue.message.startsWith('YAML:') && issue.line !== undefined)).toBe(
      true,
    );
  });
});
