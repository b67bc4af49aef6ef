// Pure: what a `swarm:` task hands its swarm when its child swarm run ends. Workflow-safe.
import { formatBytes } from '@wharf/common';
import type { SubagentResult } from '../contracts/agent-contracts.js';
import type { SwarmResult } from '../contracts/swarm-contracts.js';
import type { SwarmDefinition } from '../contracts/swarm-schema.js';
import { INLINE_OUT_IDS } from './task-results.js';

/** Most characters of a `swarm:` task's preview. */
export const CHILD_PREVIEW_CHARS = 1_000;

/**
 * A child swarm's result as its `swarm:` task's result, so later tasks read it by `†` as any
 * task's output: `status` ok when the child completed; `outputs` its tasks' out ids, those of
 * its last tasks (the ones no other task depends on) first, so `outId` is the main output of
 * its last task, at most {@link INLINE_OUT_IDS}; `preview` the supervisor's answer, else the
 * previews of its last tasks, one per line (at most {@link CHILD_PREVIEW_CHARS} characters);
 * `bytes` and `usage` the child's totals; `compact` one line per task for the supervisor.
 *
 * @example
 * ```ts
 * childSwarmResult(result, child, 1200).preview; // 'report: 3 findings'
 * ```
 */
export function childSwarmResult(
  result: SwarmResult,
  child: SwarmDefinition,
  durationMs: number,
): SubagentResult {
  const names = Object.keys(child.tasks);
  const read = new Set(names.flatMap((task) => child.tasks[task]?.depends_on ?? []));
  const last = names.filter((task) => !read.has(task));
  const outIds = [...new Set([...last, ...names].flatMap((task) => result.outputs[task] ?? []))];
  const previews = last.flatMap((task) => {
    const preview = result.previews?.[task];
    return preview === undefined ? [] : [preview.replace(/\n+$/, '')];
  });
  const answer = result.supervisor?.answer;
  const preview = Array.from(answer !== undefined && answer !== '' ? answer : previews.join('\n'))
    .slice(0, CHILD_PREVIEW_CHARS)
    .join('');
  const failed = result.tasks.filter((task) => task.status === 'failed');
  const done = result.tasks.filter((task) => task.status === 'done').length;
  const compact = [
    `swarm ${result.swarm}: ${result.status} · ${done} of ${result.tasks.length} tasks done · ${formatBytes(result.metrics.totalBytes)}`,
    ...result.tasks.map(
      (task) => `- ${task.task}: ${task.status}${task.reason === undefined ? '' : ` (${task.reason})`}`,
    ),
  ].join('\n');
  return {
    status: result.status === 'completed' ? 'ok' : 'failed',
    outputs: outIds.slice(0, INLINE_OUT_IDS).map((outId) => ({ outId })),
    compact,
    bytes: result.metrics.totalBytes,
    durationMs,
    preview,
    ...(failed.length === 0
      ? {}
      : {
          stderrTail: failed
            .map((task) => `${task.task} failed${task.reason === undefined ? '' : `: ${task.reason}`}`)
            .join('\n'),
        }),
    ...(result.metrics.usage === undefined ? {} : { usage: result.metrics.usage }),
  };
}
