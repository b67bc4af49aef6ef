import { describe, expect, it } from 'vitest';
import { parseSwarm } from './parse-swarm.js';
import { SwarmDefinitionError } from './swarm-definition-error.js';

const swarm = (timeouts: string) => `
name: x
agents:
  boss: { model: mock:boss, timeouts: ${timeouts} }
tasks:
  a: { agent: boss }
`;

describe('agents.<name>.timeouts', () => {
  it('parses duration strings and numbers to milliseconds', () => {
    expect(parseSwarm(swarm('{ heartbeat: 2s, start_to_close: 5 minutes }')).agents.boss?.timeouts).toEqual({
      heartbeat: 2_000,
      start_to_close: 300_000,
    });
    expect(parseSwarm(swarm('{ heartbeat: 500ms, start_to_close: 1h }')).agents.boss?.timeouts).toEqual({
      heartbeat: 500,
      start_to_close: 3_600_000,
    });
    expect(parseSwarm(swarm('{ heartbeat: 1500 }')).agents.boss?.timeouts).toEqual({ heartbeat: 1_500 });
  });

  it('names the field of a bad duration or an unknown key', () => {
    let caught: unknown;
    try {
      parseSwarm(swarm('{ heartbeat: soon, start_to_close: 0s, idle: 3s }'));
    } catch (error) {
      caught = error;
    }
    expect(SwarmDefinitionError.isInstance(caught)).toBe(true);
    const issues = (caught as SwarmDefinitionError).issues;
    expect(issues.some((issue) => issue.path === 'agents.boss.timeouts.heartbeat')).toBe(true);
    expect(issues.some((issue) => issue.path === 'agents.boss.timeouts.start_to_close')).toBe(true);
    expect(issues.some((issue) => issue.message.includes('idle'))).toBe(true);
  });
});
