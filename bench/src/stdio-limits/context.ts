import {
  buildSmartContext,
  parseWorkflow,
  type TaskDefinition,
  type TaskOutput,
  type WorkflowState,
} from '@wharf/stdio-limits';
import { formatTable, measure } from '../harness.js';

/** `buildSmartContext` over `count` task outputs vs joining every output (the note's old behaviour). */
export async function runContext(count: number): Promise<string> {
  const now = 1_700_000_000_000;
  const tasks: Record<string, TaskDefinition> = {};
  const taskOutputs: Record<string, TaskOutput> = {};
  for (let index = 0; index < count; index++) {
    const taskId = `task-${index}`;
    const depends = [index - 1, index - 7]
      .filter((dependency) => dependency >= 0)
      .map((dependency) => `task-${dependency}`);
    tasks[taskId] = { agent: `agent-${index % 20}`, depends_on: depends };
    const content = `result of ${taskId}: ${'data '.repeat(200)}`;
    taskOutputs[taskId] = {
      taskId,
      outputType: 'stdout',
      content,
      originalSize: content.length,
      truncated: index % 3 === 0,
      strategy: 'tail',
      relevanceScore: 0,
      completedAt: now - (count - index) * 1000,
      lastAccessed: now,
      dependedBy: [],
    };
  }
  tasks.current = { agent: 'agent-3', depends_on: [`task-${count - 1}`] };
  const workflow = parseWorkflow({ tasks });
  const state: WorkflowState = { taskOutputs };
  const calls = 20;
  let included = 0;
  const ours = await measure(calls, () => {
    for (let call = 0; call < calls; call++) {
      included = buildSmartContext({ currentTaskId: 'current', workflow, state, now }).tasks.length;
    }
  });
  let joined = 0;
  const baseline = await measure(calls, () => {
    for (let call = 0; call < calls; call++) {
      joined = Object.values(taskOutputs)
        .map((output) => `Task: ${output.taskId}\n${output.content}\n\n`)
        .join('').length;
    }
  });
  return [
    formatTable(`buildSmartContext over ${count} outputs (calls/s; baseline: join every output)`, [
      {
        name: 'buildSmartContext, default config',
        ours: ours.opsPerSecond,
        baseline: baseline.opsPerSecond,
        target: 0.2,
      },
    ]),
    `time per call: ${((ours.seconds / calls) * 1000).toFixed(2)} ms; context holds ${included} tasks ` +
      `(the join holds ${count}, ${(joined / 1024 / 1024).toFixed(1)} MiB)`,
  ].join('\n');
}
