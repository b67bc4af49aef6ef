import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwarmTestEnv, type SwarmTestEnv } from './swarm-env.js';

const swarm = `
name: user-channels
channels:
  findings: { type: topic }
  total: { type: delta }
  all_scanned: { type: barrier, expected: 3 }
tasks:
  scan:
    loop: { type: repeat, count: 3 }
    script: { content: 'printf "finding %s" "$WHARF_INSTANCE"' }
    output: †channels.findings && †channels.total && †channels.all_scanned
  report:
    depends_on: [scan]
    inputs:
      findings: †channels.findings
      total: †channels.total
      arrivals: †channels.all_scanned
    script: { content: 'echo "$WHARF_INPUTS"' }
`;

describe('user channels on a real Temporal server', () => {
  let env: SwarmTestEnv;
  beforeAll(async () => {
    env = await createSwarmTestEnv('user-channels');
  });
  afterAll(async () => {
    await env?.close();
  });

  it('folds †channels outputs with the channel rule and hands them to readers as inputs', async () => {
    const { workflowId } = await env.wharf.startSwarm(swarm);
    const { result, state } = await env.withWorker(async () => ({
      result: await env.wharf.result(workflowId),
      state: await env.wharf.state(workflowId),
    }));
    expect(result.status).toBe('completed');
    const values = (state as { values: Record<string, unknown> }).values;
    const findings = values['channel:findings'] as { outId: string; preview: string }[];
    expect(findings.map((finding) => finding.preview)).toEqual(['finding 0', 'finding 1', 'finding 2']);
    expect(findings.map((finding) => finding.outId)).toEqual(result.outputs.scan);
    expect(values['channel:total']).toBe(27);
    expect(values['channel:all_scanned']).toEqual(['scan#0', 'scan#1', 'scan#2']);

    const reportId = result.outputs.report?.[0] as string;
    const inputs = JSON.parse(
      Buffer.from((await env.store.get({ outId: reportId })).body).toString('utf8'),
    ) as {
      findings: { outId: string }[];
      total: number;
      arrivals: string[];
    };
    expect(inputs.findings.map((finding) => finding.outId)).toEqual(result.outputs.scan);
    expect(inputs.total).toBe(27);
    expect(inputs.arrivals).toEqual(['scan#0', 'scan#1', 'scan#2']);
  });
});
