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

  it('reports an unknown name at its line and column, with the near names', () => {
    const issues = issuesOf(() => parseSwarm(yaml('shell, shel, lookup')));
    expect(issues).toEqual([
      expect.objectContaining({ path: 'agents.coder.tools[1]', line: 5, column: 20 }),
      expect.objectContaining({ path: 'agents.coder.tools[2]', line: 5, column: 26 }),
    ]);
    expect(issues[0]?.message).toContain('unknown tool "shel" (did you mean "shell"?)');
  });

  it('checks definitions given as objects too, without positions', () => {
    const issues = issuesOf(() =>
      validateSwarm({
        name: 't',
        agents: { coder: { model: 'mock:m', tools: ['grep'] } },
        tasks: { build: { agent: 'coder' } },
      }),
    );
    expect(issues).toEqual([expect.objectContaining({ path: 'agents.coder.tools[0]' })]);
    expect(issues[0]?.line).toBeUndefined();
  });
});
