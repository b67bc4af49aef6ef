import { describe, expect, it } from 'vitest';
import type { SubagentResult } from '../contracts/agent-contracts.js';
import { parseSwarm } from '../dsl/parse-swarm.js';
import { resultOmissions, splitSubagentInput, subagentCall } from './activity-calls.js';
import { foldOutcomes } from './fold-step.js';
import { nextStep } from './plan-step.js';
import { orderedCompacts } from './swarm-report.js';
import { createSwarmState } from './swarm-state.js';

const definition = parseSwarm(`
name: wide
channels:
  seen: { type: topic }
tasks:
  fan:
    loop: { type: repeat, count: 6 }
    script: { content: 'echo "$WHARF_INSTANCE"' }
  read:
    loop: { type: repeat, count: 6 }
    script: { content: 'true' }
    output: †data.read
  told:
    loop: { type: repeat, count: 6 }
    script: { content: 'true' }
    output: †channels.seen
  agents:
    loop: { type: repeat, count: 6 }
    agent: helper
    prompt: 'look'
  once:
    script: { content: 'true' }
agents:
  helper: { model: 'mock:a' }
`);

const place = { ownerId: 'owner', workflowId: 'wf-1' };

describe('resultOmissions', () => {
  it("leaves a wide script loop's compact out past its first three instances, and its preview when nothing reads it", () => {
    const state = createSwarmState(definition);
    const omissions = (task: string, instance: number) => resultOmissions(state, { task, instance });
    expect([0, 1, 2].map((instance) => omissions('fan', instance))).toEqual([[], [], []]);
    expect(omissions('fan', 3)).toEqual(['compact', 'preview']);
    // An `output:` path or a channel reads the preview.
    expect(omissions('read', 5)).toEqual(['compact']);
    expect(omissions('told', 5)).toEqual(['compact']);
    // Agents return their whole result; a task without a loop too.
    expect(omissions('agents', 5)).toEqual([]);
    expect(omissions('once', 0)).toEqual([]);
  });

  it('is part of what an instance is given, never of the definition its instances share', () => {
    const state = createSwarmState(definition);
    const [first, , , fourth] = nextStep(state, 1_000).instances.filter((item) => item.task === 'fan');
    if (first === undefined || fourth === undefined) throw new Error('fan was not scheduled');
    expect(subagentCall(state, first, place, undefined).input).not.toHaveProperty('omit');
    const call = subagentCall(state, fourth, place, undefined);
    expect(call.input.omit).toEqual(['compact', 'preview']);
    const { definition: shared, own } = splitSubagentInput(call.input);
    expect(own.omit).toEqual(['compact', 'preview']);
    expect(shared).not.toHaveProperty('omit');
    expect(splitSubagentInput(subagentCall(state, first, place, undefined).input).definition).toEqual(shared);
  });
});

describe('folding results that omit their compact', () => {
  it("keeps the first instances' compacts and the first failures', whatever the others left out", () => {
    const state = createSwarmState(definition);
    const instances = nextStep(state, 1_000).instances.filter((item) => item.task === 'fan');
    const outcome = (instance: number): SubagentResult => {
      const base = { outputs: [{ outId: `out_f${instance}` }], bytes: 2, exitCode: 0, durationMs: 1 };
      if (instance === 4)
        return {
          ...base,
          status: 'failed',
          exitCode: 1,
          compact: 'fan#4 failed',
          preview: '',
          stderrTail: 'no',
        };
      const omit = resultOmissions(state, { task: 'fan', instance });
      return {
        ...base,
        status: 'ok',
        ...(omit.includes('compact') ? {} : { compact: `fan#${instance} ok` }),
        ...(omit.includes('preview') ? {} : { preview: `${instance}\n` }),
      };
    };
    foldOutcomes(
      state,
      instances,
      instances.map((item) => outcome(item.instance)),
      2_000,
    );
    expect(orderedCompacts(state)).toEqual([
      'fan#0 ok',
      'fan#1 ok',
      'fan#2 ok',
      'fan#4 failed',
      'fan: 6 instances (5 ok, 1 failed, 0 cancelled); 4 shown above',
    ]);
  });
});
