import {
  formatBytes,
  formatUsage,
  type LiveInstance,
  type PendingToolCall,
  type SwarmProgress,
  statusMarks,
  type TaskProgress,
} from '@wharf/orchestrator';
import { terminalSafeLine } from './terminal-safe.js';

/** Options of {@link progressLines} and {@link changedLines}. */
export interface ProgressViewOptions {
  /**
   * The command that answers a task's approval gate (or, with `callId`, a tool call its agent
   * holds), shown beside what waits. Default `wharf approve <run> <task> [--call <id>]` (the run
   * left for the reader to fill in).
   */
  approveCommand?: (task: string, callId?: string) => string;
  /** The end of a running step's answer so far, by its stream (`LiveInstance.stream`): shown under its agent's line. */
  answer?: (stream: string) => string | undefined;
}

/**
 * One line per task: mark, name, status, instances, bytes captured, elapsed, model usage (agent
 * tasks), note; under a
 * running task one line per running subagent with its agent step and tool calls (from the
 * heartbeats `WharfClient.progress` read), under a gated task what its approval waits for,
 * under a running `swarm:` task its child run's tasks (`TaskProgress.child`), named
 * `<task>.<inner task>` with the commands that answer their gates from the parent.
 *
 * @example
 * ```ts
 * for (const line of progressLines(progress, Date.now())) console.log(line);
 * ```
 */
export function progressLines(
  progress: SwarmProgress,
  now: number,
  options: ProgressViewOptions = {},
): string[] {
  const width = Math.max(4, ...progress.tasks.map((task) => task.task.length));
  return progress.tasks.flatMap((task) => {
    const elapsed =
      task.startedAt === undefined ? '' : `${(((task.endedAt ?? now) - task.startedAt) / 1000).toFixed(1)}s`;
    const instances = task.instances.total > 1 ? ` ${task.instances.done}/${task.instances.total}` : '';
    const line = [
      statusMarks[task.status],
      task.task.padEnd(width),
      `${task.status}${instances}`.padEnd(14),
      formatBytes(task.bytesCaptured).padStart(9),
      elapsed.padStart(7),
      ...(task.usage === undefined ? [] : [formatUsage(task.usage)]),
      noteOf(task, options),
    ]
      .join('  ')
      .trimEnd();
    const indent = ' '.repeat(width + 5);
    const { child } = task;
    return [
      line,
      ...(task.live ?? []).flatMap((live) => {
        const answer = live.stream === undefined ? undefined : options.answer?.(live.stream);
        return [
          `${indent}${liveLine(task.task, live)}`,
          ...(answer === undefined ? [] : [`${indent}  ▸ ${answer}`]),
        ];
      }),
      ...heldCalls(progress, task.task).map((call) => `${indent}${heldCallLine(call, options)}`),
      // A swarm: task's child run: its tasks under it, named as `wharf approve` names them.
      ...(child === undefined
        ? []
        : [
            `${indent}↳ swarm ${child.swarm} (${child.workflowId}): ${child.status} (step ${child.step})`,
            ...progressLines(childTasks(task.task, child), now, options).map(
              (nested) => `${indent}  ${nested}`,
            ),
          ]),
    ];
  });
}

/**
 * A `swarm:` task's child run as if its tasks were the parent's, named `<task>.<inner task>`
 * (their held tool calls too), so each line and command names them as `wharf approve <parent>`
 * takes them; the child's own children are renamed in turn when drawn.
 *
 * @example
 * ```ts
 * childTasks('notes', child).tasks.map((task) => task.task); // ['notes.draft', 'notes.publish']
 * ```
 */
export function childTasks(task: string, child: SwarmProgress): SwarmProgress {
  const named = (name: string) => `${task}.${name}`;
  return {
    ...child,
    tasks: child.tasks.map((entry) => ({ ...entry, task: named(entry.task) })),
    ...(child.pendingToolCalls === undefined
      ? {}
      : {
          pendingToolCalls: child.pendingToolCalls.map((call) => ({
            ...call,
            task: named(call.task),
            owner: named(call.owner),
          })),
        }),
  };
}

/** The tool calls an agent of `task` holds for a person (`review#2`'s belong to `review`). */
function heldCalls(progress: SwarmProgress, task: string): PendingToolCall[] {
  return (progress.pendingToolCalls ?? []).filter((call) => call.owner.split('#')[0] === task);
}

/** `⏸ shell {"command":"rm -rf build"} waits for approval (wharf approve run-1 review --call c1)`. */
function heldCallLine(call: PendingToolCall, options: ProgressViewOptions): string {
  const command =
    options.approveCommand?.(call.task, call.callId) ??
    `wharf approve <run> ${call.task} --call ${call.callId}`;
  const prompt = call.prompt === undefined ? '' : `: ${call.prompt}`;
  return `⏸ ${terminalSafeLine(`${call.tool} ${call.arguments}`)} waits for approval${terminalSafeLine(prompt)} (${command})`;
}

/**
 * Why a task is where it is: its reason, its pending approval (with the command that answers
 * it), its gate's answer while it waits for its step, or what it waits for; on one line, its
 * control characters shown as `�` (a reason can carry a script's stderr).
 */
function noteOf(task: TaskProgress, options: ProgressViewOptions): string {
  return terminalSafeLine(rawNoteOf(task, options));
}

function rawNoteOf(task: TaskProgress, options: ProgressViewOptions): string {
  if (task.reason !== undefined) return task.reason;
  const gate = task.approval;
  if (awaitsApproval(task)) {
    const command = options.approveCommand?.(task.task) ?? `wharf approve <run> ${task.task}`;
    return `awaits approval${gate?.prompt === undefined ? '' : `: ${gate.prompt}`} (${command})`;
  }
  if (task.status === 'waiting' && gate?.decision !== undefined) return decisionOf(gate);
  return task.waitingFor.length > 0 ? `waits for ${task.waitingFor.join(', ')}` : '';
}

function awaitsApproval(task: TaskProgress): boolean {
  const gate = task.approval;
  return task.status === 'waiting' && gate?.requestedAt !== undefined && gate.decision === undefined;
}

/** `approved by ana: notes checked`, `rejected (timed out)`. */
function decisionOf(gate: NonNullable<TaskProgress['approval']>): string {
  const by = gate.timedOut === true ? ' (timed out)' : gate.by === undefined ? '' : ` by ${gate.by}`;
  return `${gate.decision}${by}${gate.comment === undefined ? '' : `: ${gate.comment}`}`;
}

/** `review#2 · step 3 · tools: shell, read_file ×2 · 1.2KB` for one running subagent. */
export function liveLine(task: string, live: LiveInstance): string {
  const parts = [live.instance === undefined ? task : `${task}#${live.instance}`];
  if (live.step !== undefined) parts.push(`step ${live.step}`);
  if (live.toolCalls !== undefined && live.toolCalls.length > 0) parts.push(toolSummary(live.toolCalls));
  if (live.bytes !== undefined && live.bytes > 0) parts.push(formatBytes(live.bytes));
  if (live.attempt > 1) parts.push(`attempt ${live.attempt}`);
  return `↳ ${parts.join(' · ')}`;
}

/** The last few tool calls, repeats folded: `search ×2, read_file`. */
function toolSummary(calls: readonly string[]): string {
  const folded: { name: string; count: number }[] = [];
  for (const name of calls.slice(-8)) {
    const last = folded.at(-1);
    if (last?.name === name) last.count += 1;
    else folded.push({ name, count: 1 });
  }
  return `tools: ${folded.map(({ name, count }) => (count > 1 ? `${name} ×${count}` : name)).join(', ')}`;
}

/**
 * Lines for a log that is not a terminal: one line each time a task changes status.
 *
 * @example
 * ```ts
 * const seen = new Map<string, string>();
 * for (const line of changedLines(progress, seen)) console.log(line);
 * ```
 */
export function changedLines(
  progress: SwarmProgress,
  seen: Map<string, string>,
  options: ProgressViewOptions = {},
): string[] {
  const lines: string[] = [];
  for (const task of progress.tasks) {
    const gate = task.approval;
    const awaiting = awaitsApproval(task);
    // A gate answered while its task still waits for its step is a change worth a line.
    const answered = task.status === 'waiting' && gate?.decision !== undefined;
    const key = `${task.status}:${task.instances.done}${awaiting ? ':approval' : answered ? ':answered' : ''}`;
    if (seen.get(task.task) !== key) {
      seen.set(task.task, key);
      if (task.status === 'pending') continue;
      const detail = [
        task.instances.total > 1 ? `${task.instances.done}/${task.instances.total}` : '',
        task.bytesCaptured > 0 ? formatBytes(task.bytesCaptured) : '',
        task.outIds.length > 0 ? task.outIds.join(',') : '',
        awaiting || answered ? noteOf(task, options) : terminalSafeLine(task.reason ?? ''),
      ]
        .filter(Boolean)
        .join(' ');
      lines.push(`${task.task}: ${task.status}${detail ? ` ${detail}` : ''}`);
    }
    for (const call of heldCalls(progress, task.task)) {
      const id = `call:${call.workflowId}:${call.callId}`;
      if (seen.has(id)) continue;
      seen.set(id, 'held');
      lines.push(`  ${heldCallLine(call, options)}`);
    }
    // A running agent's step and tool calls, each time they change.
    for (const live of task.live ?? []) {
      if (live.step === undefined && live.toolCalls === undefined) continue;
      const id = `${task.task}#${live.instance ?? ''}`;
      const text = liveLine(task.task, { ...live, bytes: 0 });
      if (seen.get(id) === text) continue;
      seen.set(id, text);
      lines.push(`  ${text}`);
    }
    // A swarm: task's child run: its tasks' changes, named `<task>.<inner task>`.
    if (task.child !== undefined)
      lines.push(...changedLines(childTasks(task.task, task.child), seen, options));
  }
  return lines;
}
