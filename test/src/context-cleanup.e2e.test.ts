import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSwarmTestEnv, type SwarmTestEnv } from './swarm-env.js';

const swarm = (cleanup: string) => `
name: cleanup
${cleanup}
tasks:
  fan:
    loop: { type: repeat, count: 5 }
    script: { content: 'echo "part $WHARF_INSTANCE"' }
  join:
    depends_on: [fan]
    script: { content: 'cat "$WHARF_CONTEXT_FILE"' }
`;

describe('limits.cleanup_strategy on a real Temporal server', () => {
  let env: SwarmTestEnv;
  beforeAll(async () => {
    env = await createSwarmTestEnv('context-cleanup');
  });
  afterAll(async () => {
    await env?.close();
  });

  it('trims the context pool after each step: later contexts and the metrics see only what it kept', async () => {
    const trimmed = await env.wharf.startSwarm(
      swarm('limits:\n  cleanup_strategy: { type: most_recent, keep_count: 2 }'),
    );
    const whole = await env.wharf.startSwarm(swarm(''));
    const [kept, all] = await env.withWorker(() =>
      Promise.all([env.wharf.result(trimmed.workflowId), env.wharf.result(whole.workflowId)]),
    );
    expect(all.metrics.context?.taskCount).toBe(6);
    // After the fan step the pool held 2 of its 5 outputs; the join's output made 3, trimmed to 2.
    expect(kept.metrics.context?.taskCount).toBe(2);
    const context = Buffer.from(
      (await env.store.get({ outId: kept.outputs.join?.[0] as string })).body,
    ).toString();
    expect(context.match(/^Task: fan#\d/gm)).toHaveLength(2);
    const wholeContext = Buffer.from(
      (await env.store.get({ outId: all.outputs.join?.[0] as string })).body,
    ).toString();
    expect(wholeContext.match(/^Task: fan#\d/gm)).toHaveLength(5);
  });
});
