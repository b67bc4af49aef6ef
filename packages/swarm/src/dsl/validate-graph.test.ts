import { describe, expect, it } from 'vitest';
import { parseSwarm, validateSwarm } from './parse-swarm.js';
import { SwarmDefinitionError } from './swarm-definition-error.js';
import { findCycle, validateGraph } from './validate-graph.js';

/** A YAML chain `t0 ← t1 ← … ← t(n-1)`; each task reads the output of the one before it. */
function chainYaml(count: number): string {
  const lines = ['name: chain', 'tasks:', '  t0: { script: { content: echo }, output: †data.t0 }'];
  for (let index = 1; index < count; index++) {
    lines.push(
      `  t${index}: { script: { content: echo }, depends_on: [t${index - 1}], inputs: { p: †data.t${index - 1} }, output: †data.t${index} }`,
    );
  }
  return `${lines.join('\n')}\n`;
}

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected an error');
}

// Sizes well past the old recursive cycle search's stack depth; not timed (figures live in bench/).
describe('large graphs', { timeout: 300_000 }, () => {
  it('validates a 6,000-task chain without overflowing the stack', () => {
    const definition = parseSwarm(chainYaml(6_000));
    expect(Object.keys(definition.tasks)).toHaveLength(6_000);
  });

  it('validates a 20,000-task chain whose every task reads its predecessor', () => {
    // As an object: the YAML path at this size is the 6,000-task case's, and costs seconds more.
    const tasks: Record<string, unknown> = { t0: { script: { content: 'echo' }, output: '†data.t0' } };
    for (let index = 1; index < 20_000; index++) {
      tasks[`t${index}`] = {
        script: { content: 'echo' },
        depends_on: [`t${index - 1}`],
        inputs: { p: `†data.t${index - 1}` },
        output: `†data.t${index}`,
      };
    }
    const definition = validateSwarm({ name: 'chain', tasks });
    expect(definition.tasks.t19999?.depends_on).toEqual(['t19998']);
  });

  it('still catches a reader 19,990 tasks down a chain that does not depend on the writer', () => {
    const tasks: Record<string, unknown> = {
      w: { script: { content: 'echo' }, output: '†data.w' },
      t0: { script: { content: 'echo' } },
    };
    for (let index = 1; index < 19_990; index++) {
      tasks[`t${index}`] = { script: { content: 'echo' }, depends_on: [`t${index - 1}`] };
    }
    tasks.late = { script: { content: 'echo' }, depends_on: ['t19989'], inputs: { p: '†data.w' } };
    tasks.ok = { script: { content: 'echo' }, depends_on: ['t19989', 'w'], inputs: { p: '†data.w' } };
    const error = thrown(() => validateSwarm({ name: 'x', tasks })) as SwarmDefinitionError;
    expect(SwarmDefinitionError.isInstance(error)).toBe(true);
    expect(error.issues).toEqual([
      {
        path: 'tasks.late.inputs.p',
        message: '†data.w is written by w, which does not run before late: add it to depends_on',
      },
    ]);
  });

  it('finds a 20,000-task cycle and spells out only its ends', () => {
    const tasks: Record<string, { depends_on: string[] }> = {};
    for (let index = 0; index < 20_000; index++)
      tasks[`t${index}`] = { depends_on: [`t${(index + 1) % 20_000}`] };
    const cycle = findCycle(tasks);
    expect(cycle).toHaveLength(20_001);
    expect(cycle?.[0]).toBe('t0');
    expect(cycle?.at(-1)).toBe('t0');
    const issues = validateGraph({ tasks, agents: {} });
    expect(issues).toHaveLength(1);
    expect(issues[0]?.message).toMatch(/^dependency cycle of 20000 tasks: t0 → t1 → .* → t19999 → t0$/);
    expect(issues[0]?.message.length).toBeLessThan(300);
  });

  it('keeps the text of 5,000 unknown dependencies bounded', () => {
    const lines = ['name: x', 'tasks:'];
    for (let index = 0; index < 5_000; index++) {
      lines.push(`  t${index}: { script: { content: echo }, depends_on: [ghost${index}] }`);
    }
    const error = thrown(() => parseSwarm(lines.join('\n'), { source: 'big.yaml' })) as SwarmDefinitionError;
    expect(SwarmDefinitionError.isInstance(error)).toBe(true);
    expect(error.issues).toHaveLength(5_000);
    expect(error.issues[4_999]).toMatchObject({ path: 'tasks.t4999.depends_on[0]', line: 5_002 });
    expect(error.message).toContain('(5000 problems)');
    expect(error.message).toMatch(/… and 4950 more problems$/);
    expect(error.message.length).toBeLessThan(8_000);
  });
});

describe('unknown names', () => {
  it('suggests the nearest task names instead of listing every task', () => {
    const issues = validateGraph({
      tasks: {
        build: { depends_on: [] },
        built: { depends_on: [] },
        test: { depends_on: ['biuld', 'deploy'] },
      },
      agents: {},
    });
    expect(issues.map((issue) => issue.message)).toEqual([
      'unknown task "biuld" (did you mean "build"?)',
      'unknown task "deploy" (defined: build, built, test)',
    ]);
  });

  it('names an agent called like an Object method as unknown, with a suggestion', () => {
    const issues = validateGraph({
      tasks: { a: { depends_on: [], agent: 'constructor' }, b: { depends_on: [], agent: 'reveiwer' } },
      agents: { reviewer: {} },
    });
    expect(issues.map((issue) => issue.message)).toEqual([
      'unknown agent "constructor" (defined: reviewer)',
      'unknown agent "reveiwer" (did you mean "reviewer"?)',
    ]);
  });
});
