import { describe, expect, it } from 'vitest';
import { parseSwarm, validateSwarm } from './parse-swarm.js';
import { SwarmDefinitionError } from './swarm-definition-error.js';

const withTools = (tools: string) => `name: ops
agents:
  ops:
    model: echo
    tools: ${tools}
tasks:
  clean: { agent: ops, prompt: Clean up. }
`;

function issuesOf(text: string) {
  try {
    parseSwarm(text, { source: 'swarm.yaml' });
  } catch (error) {
    if (SwarmDefinitionError.isInstance(error)) return error.issues;
  }
  throw new Error('expected a SwarmDefinitionError');
}

describe("an agent's tools in swarm.yaml", () => {
  it('keeps plain names as they were: no approval at all', () => {
    const agent = parseSwarm(withTools('[shell, read_file]')).agents.ops;
    expect(agent?.tools).toEqual(['shell', 'read_file']);
    expect(agent).not.toHaveProperty('tool_approvals');
  });

  it('reads { name, approval } entries as names plus approval rules, with their defaults', () => {
    const definition = parseSwarm(
      withTools(`
      - read_file
      - { name: shell, approval: true }
      - name: write_file
        approval: { prompt: Write it?, match: { path: '^/etc/' }, timeout: 10m, on_timeout: approve }
      - { name: http_request, approval: false }`),
    );
    const agent = definition.agents.ops;
    expect(agent?.tools).toEqual(['read_file', 'shell', 'write_file', 'http_request']);
    expect(agent?.tool_approvals).toEqual({
      shell: { on_timeout: 'reject' },
      write_file: { prompt: 'Write it?', match: { path: '^/etc/' }, timeout: 600_000, on_timeout: 'approve' },
    });
    // The read form reads again the same (a definition passed along as an object).
    expect(validateSwarm(JSON.parse(JSON.stringify(definition)))).toEqual(definition);
  });

  it('refuses a pattern that is no regular expression, unknown rule fields, and rules for tools the agent lacks', () => {
    const issues = issuesOf(withTools(`[{ name: shell, approval: { match: { command: '(' }, when: x } }]`));
    expect(issues.map((issue) => issue.path).sort()).toEqual([
      'agents.ops.tools[0].approval',
      'agents.ops.tools[0].approval.match.command',
    ]);
    expect(issues.find((issue) => issue.path.endsWith('command'))?.message).toContain(
      'not a regular expression',
    );
    expect(issues.every((issue) => issue.line === 5)).toBe(true);
    const stray = issuesOf(
      `${withTools('[shell]').replace('    tools: [shell]', '    tools: [shell]\n    tool_approvals: { write_file: {} }')}`,
    );
    expect(stray).toEqual([
      expect.objectContaining({
        path: 'agents.ops.tool_approvals.write_file',
        message: expect.stringContaining('not one of'),
      }),
    ]);
  });
});
