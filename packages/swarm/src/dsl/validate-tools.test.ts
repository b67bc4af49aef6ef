import { describe, expect, it } from 'vitest';
import { parseSwarm, validateSwarm } from './parse-swarm.js';
import { SwarmDefinitionError } from './swarm-definition-error.js';

const yaml = (tools: string) => `name: t
agents:
  coder:
    model: mock:m
    tools: [${tools}]
tasks:
  build: { agent: coder, prompt: go }
`;

function issuesOf(run: () => unknown) {
  try {
    run();
  } catch (error) {
    if (SwarmDefinitionError.isInstance(error)) return error.issues;
    throw error;
  }
  return [];
}

describe('agents.<name>.tools', () => {
  it("accepts the built-ins, the tools every agent has, and the tools named as the workers'", () => {
    const definition = parseSwarm(yaml('shell, read_file, write_file, http_request, emit, lookup'), {
      tools: ['lookup'],
    });
    expect(definition.agents.coder?.tools).toContain('lookup');
  });

  it("with the workers' tools named, reports every other name at its line and column, with the near names", () => {
    const issues = issuesOf(() => parseSwarm(yaml('shell, shel, lookup, lokup'), { tools: ['lookup'] }));
    expect(issues).toEqual([
      expect.objectContaining({ path: 'agents.coder.tools[1]', line: 5, column: 20 }),
      expect.objectContaining({ path: 'agents.coder.tools[3]', line: 5, column: 34 }),
    ]);
    expect(issues[0]?.message).toContain('unknown tool "shel" (did you mean "shell"?)');
    expect(issues[1]?.message).toContain('unknown tool "lokup" (did you mean "lookup"?)');
    // An empty list is a list: the workers have no tools of their own.
    expect(issuesOf(() => parseSwarm(yaml('lookup'), { tools: [] }))).toEqual([
      expect.objectContaining({ path: 'agents.coder.tools[0]', line: 5, column: 13 }),
    ]);
  });

  it("without the workers' tools, leaves other names to the worker but still catches typos of Wharf's tools", () => {
    const definition = parseSwarm(yaml('shell, files_read, lookup, spawn_worker'));
    expect(definition.agents.coder?.tools).toEqual(['shell', 'files_read', 'lookup', 'spawn_worker']);
    const issues = issuesOf(() => parseSwarm(yaml('lookup, shel, read_fle, read_inptu, spawn_workers')));
    expect(issues.map((issue) => [issue.path, issue.line, issue.column])).toEqual([
      ['agents.coder.tools[1]', 5, 21],
      ['agents.coder.tools[2]', 5, 27],
      ['agents.coder.tools[3]', 5, 37],
      ['agents.coder.tools[4]', 5, 49],
    ]);
    expect(issues.map((issue) => /did you mean ([^?]+)\?/.exec(issue.message)?.[1])).toEqual([
      '"shell"',
      '"read_file"',
      '"read_input"',
      '"spawn_worker"',
    ]);
  });

  it('checks definitions given as objects too, without positions', () => {
    const issues = issuesOf(() =>
      validateSwarm(
        {
          name: 't',
          agents: { coder: { model: 'mock:m', tools: ['grep'] } },
          tasks: { build: { agent: 'coder' } },
        },
        { tools: [] },
      ),
    );
    expect(issues).toEqual([expect.objectContaining({ path: 'agents.coder.tools[0]' })]);
    expect(issues[0]?.line).toBeUndefined();
  });
});
