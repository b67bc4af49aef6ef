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
  later:
    depends_on: [join]
    context: { exclude_tasks: [join] }
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
    const contextOf = async (result: typeof kept, task: string) =>
      Buffer.from((await env.store.get({ outId: result.outputs[task]?.[0] as string })).body).toString();
    expect(all.metrics.context?.taskCount).toBe(7);
    // join depends on every fan instance: the pool keeps them all until join ran.
    expect((await contextOf(kept, 'join')).match(/^Task: fan#\d/gm)).toHaveLength(5);
    // Then the pool held join (later still reads it) and the one fan output keep_count left;
    // later shows the fan outputs only.
    expect((await contextOf(kept, 'later')).match(/^Task: fan#\d/gm)).toHaveLength(1);
    expect((await contextOf(all, 'later')).match(/^Task: fan#\d/gm)).toHaveLength(5);
    // With nothing left to run, the last trim kept keep_count outputs.
    expect(kept.metrics.context?.taskCount).toBe(2);
  });

  it('never prunes the output of a direct dependency before its dependent ran (cleanup_strategy and hooks)', async () => {
    const pending = (pruning: string) => `
name: prune-pending
${pruning}
tasks:
  alpha: { script: { content: 'echo alpha-output' } }
  beta: { script: { content: 'echo beta-output' } }
  gamma: { depends_on: [alpha], script: { content: 'cat "$WHARF_CONTEXT_FILE"' } }
  delta: { depends_on: [beta], script: { content: 'cat "$WHARF_CONTEXT_FILE"' } }
`;
    // alpha and beta finish in one step with equal relevance: keep_count 1 alone keeps alpha only.
    const strategy = await env.wharf.startSwarm(
      pending('limits:\n  cleanup_strategy: { type: highest_relevance, keep_count: 1 }'),
    );
    const hook = await env.wharf.startSwarm(
      pending(
        'hooks:\n  post_task:\n    - checkpoint_and_prune: { every: 1, strategy: highest_relevance, keep_count: 1 }',
      ),
    );
    const results = await env.withWorker(() =>
      Promise.all([env.wharf.result(strategy.workflowId), env.wharf.result(hook.workflowId)]),
    );
    for (const result of results) {
      expect(result.status).toBe('completed');
      const contextOf = async (task: string) =>
        Buffer.from((await env.store.get({ outId: result.outputs[task]?.[0] as string })).body).toString();
      const delta = await contextOf('delta');
      expect(delta).toContain('Task: beta (relevance: 1.00)');
      expect(delta).toContain('beta-output');
      expect(await contextOf('gamma')).toContain('alpha-output');
      // Once nothing is left to run, keep_count holds again.
      expect(result.metrics.context?.taskCount).toBe(1);
    }
  });
});
