import { describe, expect, it } from 'vitest';
import { validateSwarm } from '../dsl/parse-swarm.js';
import { agentTaskInput, promptedTask } from './agent-task-input.js';

const definition = validateSwarm({
  name: 's',
  agents: {
    lead: { model: 'mock:a', tools: ['spawn_worker'] },
    helper: { model: 'mock:b', tools: [] },
  },
  tasks: { ask: { agent: 'lead', prompt: 'go' } },
});
const lead = definition.agents.lead as NonNullable<(typeof definition.agents)['lead']>;
const helper = definition.agents.helper as NonNullable<(typeof definition.agents)['helper']>;
const run = { swarm: 's', ownerId: 'o', workflowId: 'wf', workdir: '/w', limits: { max_stdout_bytes: 9 } };

describe('agentTaskInput', () => {
  it('gives the swarm’s agents only to an agent whose tools name spawn_worker', () => {
    const asked = promptedTask(run, {
      task: 'ask',
      agentName: 'lead',
      agent: lead,
      prompt: 'go',
      inputs: {},
    });
    expect(agentTaskInput(asked, { agents: definition.agents }).spawnable).toBe(definition.agents);
    const helped = { ...asked, agent: helper };
    expect(agentTaskInput(helped, { agents: definition.agents })).not.toHaveProperty('spawnable');
    // A spawned worker is given no agents: it may not spawn in turn.
    expect(agentTaskInput(asked, { owner: 'ask' })).not.toHaveProperty('spawnable');
  });

  it('adds the heartbeat timeout, owner and supervisor task only when given', () => {
    const task = promptedTask(run, {
      task: 'supervisor',
      agentName: 'helper',
      agent: helper,
      prompt: 'q',
      inputs: {},
    });
    expect(agentTaskInput(task)).toEqual(task);
    const supervisor = { question: 'q', budgetBytes: 10, compacts: ['c'] };
    expect(agentTaskInput(task, { heartbeatTimeoutMs: 5, owner: 'x#1', supervisor })).toEqual({
      ...task,
      heartbeatTimeoutMs: 5,
      owner: 'x#1',
      supervisor,
    });
  });
});

describe('promptedTask', () => {
  it('is one instance of a prompt, with the run’s limits and workdir and no IN_REFS', () => {
    expect(
      promptedTask(run, {
        task: 'ask.spawn-1',
        agentName: 'helper',
        agent: helper,
        prompt: 'look',
        inputs: { a: 1 },
        inManifests: [],
      }),
    ).toEqual({
      swarm: 's',
      ownerId: 'o',
      workflowId: 'wf',
      task: 'ask.spawn-1',
      instance: 0,
      definition: { agent: 'helper', prompt: 'look', depends_on: [], inject_context: false, inputs: {} },
      agent: helper,
      limits: { max_stdout_bytes: 9 },
      inputs: { a: 1 },
      inRefs: [],
      workdir: '/w',
    });
  });
});
