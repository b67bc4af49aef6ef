import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, parseLimits, parseWorkflowYaml, resolveLimits } from './limits.js';
import { StdioLimitsError } from './stdio-limits-error.js';

function thrown(action: () => unknown): StdioLimitsError {
  try {
    action();
  } catch (error) {
    if (StdioLimitsError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected a StdioLimitsError');
}

describe('configuration examples', () => {
  it('minimal: no limits block means the defaults', () => {
    const limits = resolveLimits(parseWorkflowYaml('name: "Simple Workflow"\nversion: "1.0.0"\n'));
    expect(limits).toMatchObject({
      max_stdout_bytes: 1_048_576,
      max_stderr_bytes: 262_144,
      max_combined_bytes: 1_572_864,
      truncation_strategy: 'tail',
      external_storage_threshold: 1_048_576,
      drain_timeout_ms: 2_000,
    });
    expect(limits.external_storage_dir).toBeUndefined();
  });

  it('conservative: small caps, summary', () => {
    const workflow = parseWorkflowYaml(`
name: "Memory-Constrained Workflow"
version: "1.0.0"
limits:
  max_stdout_bytes: 102400  # 100KB
  max_stderr_bytes: 51200   # 50KB
  truncation_strategy: summary
`);
    expect(resolveLimits(workflow)).toMatchObject({
      max_stdout_bytes: 102_400,
      max_stderr_bytes: 51_200,
      max_combined_bytes: 1_572_864,
      truncation_strategy: 'summary',
    });
  });

  it('generous: big caps are not undone by the default combined limit', () => {
    const workflow = parseWorkflowYaml(`
name: "High-Memory Workflow"
version: "1.0.0"
limits:
  max_stdout_bytes: 10485760  # 10MB
  max_stderr_bytes: 2097152   # 2MB
  external_storage_threshold: 5242880  # 5MB
  truncation_strategy: both
`);
    expect(resolveLimits(workflow)).toMatchObject({
      max_stdout_bytes: 10_485_760,
      max_stderr_bytes: 2_097_152,
      max_combined_bytes: 12_582_912,
      external_storage_threshold: 5_242_880,
      truncation_strategy: 'both',
    });
  });

  it('reads only limits: the rest of a workflow passes through untouched', () => {
    const workflow = parseWorkflowYaml(`
name: "Dependency-Aware Workflow"
version: "1.0.0"
limits:
  max_stdout_bytes: 204800
tasks:
  fetch:
    output: "data.json"
  process:
    depends_on: [fetch]
    limits: { truncation_strategy: head }
`);
    expect(resolveLimits(workflow, 'process')).toMatchObject({
      max_stdout_bytes: 204_800,
      truncation_strategy: 'head',
    });
    expect(workflow.tasks?.process?.depends_on).toEqual(['fetch']);
    expect(workflow.tasks?.fetch?.output).toBe('data.json');
  });
});

describe('resolveLimits', () => {
  const workflow = parseWorkflowYaml(`
limits:
  max_stdout_bytes: 1048576
  max_stderr_bytes: 262144
  max_combined_bytes: 1572864
  truncation_strategy: tail
tasks:
  verbose_task:
    agent: worker
    limits:
      max_stdout_bytes: 2097152
      truncation_strategy: summary
  quiet_task:
    limits:
      max_combined_bytes: 1000
  plain_task: {}
`);

  it('lets task limits override the workflow and grows the combined limit to fit', () => {
    expect(resolveLimits(workflow, 'verbose_task')).toMatchObject({
      max_stdout_bytes: 2_097_152,
      max_stderr_bytes: 262_144,
      max_combined_bytes: 2_359_296,
      truncation_strategy: 'summary',
    });
  });

  it('keeps an explicit combined limit below the stream caps (it binds)', () => {
    expect(resolveLimits(workflow, 'quiet_task').max_combined_bytes).toBe(1000);
    expect(resolveLimits(workflow, 'plain_task')).toMatchObject({ max_combined_bytes: 1_572_864 });
  });

  it('accepts a task definition object and no workflow at all', () => {
    expect(resolveLimits(undefined, { limits: { max_stderr_bytes: 10 } }).max_stderr_bytes).toBe(10);
    expect(resolveLimits()).toMatchObject({ max_stdout_bytes: DEFAULT_LIMITS.max_stdout_bytes });
  });
});

describe('invalid configuration', () => {
  it('rejects a negative size with its field path', () => {
    const error = thrown(() => parseWorkflowYaml('limits:\n  max_stdout_bytes: -1\n'));
    expect(error.code).toBe('INVALID_LIMITS');
    expect(error.issues[0]?.path).toBe('limits.max_stdout_bytes');
    expect(error.message).toContain('limits.max_stdout_bytes');
  });

  it('rejects an unknown strategy and an unknown key', () => {
    const error = thrown(() => parseLimits({ truncation_strategy: 'middle', max_stdout: 5 }));
    expect(error.issues.map((issue) => issue.path).sort()).toEqual(['limits', 'limits.truncation_strategy']);
    expect(error.message).toContain('max_stdout');
  });

  it('names the task when its limits are wrong', () => {
    const workflow = { tasks: { build: { limits: { truncation_strategy: 'middle' } } } };
    const error = thrown(() => resolveLimits(workflow as never, 'build'));
    expect(error.issues[0]?.path).toBe('tasks.build.limits.truncation_strategy');
    expect(
      thrown(() => parseWorkflowYaml(`tasks:\n  t:\n    limits:\n      max_stderr_bytes: 1.5\n`)).issues[0]
        ?.path,
    ).toBe('tasks.t.limits.max_stderr_bytes');
  });

  it('reports YAML syntax errors and non-limit errors with their own codes', () => {
    expect(thrown(() => parseWorkflowYaml('limits: [unclosed')).code).toBe('INVALID_YAML');
    const error = thrown(() => parseWorkflowYaml('tasks: [fetch]\n'));
    expect(error.code).toBe('INVALID_WORKFLOW');
    expect(error.issues[0]?.path).toBe('tasks');
  });
});
