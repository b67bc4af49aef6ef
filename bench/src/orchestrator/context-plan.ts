import { type ContextPoolEntry, planContext, validateSwarm } from '@wharf/orchestrator';
import type { Benchmark } from '../benchmark.js';
import { formatTable, measure } from '../harness.js';

/** `planContext` for one task over a pool of `count` outputs vs joining every output (the note's old behaviour). */
export async function runContextPlan(count: number): Promise<string> {
  const now = 1_700_000_000_000;
  const tasks: Record<string, unknown> = {};
  const entries: ContextPoolEntry[] = [];
  const bodies: string[] = [];
  for (let index = 0; index < count; index++) {
    const taskId = `task-${index}`;
    const depends = [index - 1, index - 7]
      .filter((dependency) => dependency >= 0)
      .map((dependency) => `task-${dependency}`);
    tasks[taskId] = { agent: `agent-${index % 20}`, prompt: 'p', depends_on: depends };
    bodies.push(`result of ${taskId}: ${'data '.repeat(200)}`);
    entries.push({
      taskId,
      task: taskId,
      outId: `out_${index}`,
      completedAt: now - (count - index) * 1000,
      lastAccessed: now,
      relevanceScore: 0,
    });
  }
  tasks.current = { agent: 'agent-3', prompt: 'p', depends_on: [`task-${count - 1}`] };
  const agents = Object.fromEntries(
    Array.from({ length: 20 }, (_, index) => [`agent-${index}`, { model: 'm' }]),
  );
  const definition = validateSwarm({ name: 'context', agents, tasks });
  const pool = { entries, added: count, checkpoints: [] };
  const calls = 20;
  let included = 0;
  const ours = await measure(calls, () => {
    for (let call = 0; call < calls; call++) {
      included = planContext({ definition, pool, tasks: ['current'], now }).current?.entries.length ?? 0;
    }
  });
  let joined = 0;
  const baseline = await measure(calls, () => {
    for (let call = 0; call < calls; call++) {
      joined = entries.map((entry, index) => `Task: ${entry.taskId}\n${bodies[index]}\n\n`).join('').length;
    }
  });
  return [
    formatTable(`planContext over a pool of ${count} outputs (calls/s; baseline: join every output)`, [
      {
        name: 'planContext, default limits',
        ours: ours.opsPerSecond,
        baseline: baseline.opsPerSecond,
        target: 0.2,
      },
    ]),
    `time per call: ${((ours.seconds / calls) * 1000).toFixed(2)} ms; context holds ${included} tasks ` +
      `(the join holds ${count}, ${(joined / 1024 / 1024).toFixed(1)} MiB)`,
  ].join('\n');
}

/** Choosing a task's context from a large pool (pure, no Temporal). */
export const contextPlanBenchmark: Benchmark = {
  name: 'context',
  run: ({ smoke }) => runContextPlan(smoke ? 500 : 10_000),
};
