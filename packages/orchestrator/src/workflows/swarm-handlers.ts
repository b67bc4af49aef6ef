// The queries, signal and updates of a swarm run. Deterministic: handlers only change the
// SwarmRun and tell the workflow, through its hooks, what to wake or cancel.
import { setHandler } from '@temporalio/workflow';
import {
  addInputSignal,
  addInputsUpdate,
  approveTaskUpdate,
  cancelTaskUpdate,
  progressQuery,
  stateQuery,
  toolCallNoticeSignal,
} from '../shared/definitions.js';
import type { SwarmRun } from '../swarm/swarm-run.js';

/** What the handlers of a swarm run reach beyond its {@link SwarmRun}. */
export interface SwarmHandlerHooks {
  /** Cancels the task's instances in flight, if it has any. */
  cancelRunning: (task: string) => void;
  /** Publishes the run's progress (Web UI details, memo). */
  publish: () => void;
  /** Called when a signal or update may let a waiting task run. */
  inputsChanged: () => void;
}

/**
 * Registers a swarm run's `progress` and `state` queries, its `addInput` and `toolCallNotice`
 * signals and its `addInputs`, `cancelTask` and `approveTask` updates.
 *
 * @example
 * ```ts
 * registerSwarmHandlers(run, port.hooks);
 * ```
 */
export function registerSwarmHandlers(run: SwarmRun, hooks: SwarmHandlerHooks): void {
  const { cancelRunning, publish, inputsChanged } = hooks;
  setHandler(progressQuery, () => run.progress(), {
    description: 'Per task: status, loop instances done, bytes captured, out ids, what it waits for.',
  });
  setHandler(stateQuery, () => run.channels(), {
    description: 'The durable channel snapshot: results per task (refs, sizes, exit codes) and barriers.',
  });
  setHandler(
    addInputSignal,
    ({ key, value }) => {
      run.addInput(key, value, new Date().toISOString());
      inputsChanged();
    },
    { description: 'Adds a value for †input.<key>; tasks waiting on it become ready.' },
  );
  setHandler(
    toolCallNoticeSignal,
    (notice) => {
      run.noteToolCall(notice);
      publish();
    },
    {
      description:
        'From an agent task: one of its tool calls waits for a person (wharf approve <run> <task> --call <id>), or no longer.',
    },
  );
  setHandler(
    addInputsUpdate,
    (request) => {
      const outcome = run.addInputs(request, new Date().toISOString());
      inputsChanged();
      return outcome;
    },
    {
      description:
        'Adds †input.* values; tasks waiting on them become ready. A key already set is refused unless replace is true.',
      validator: (request) => run.checkInputs(request),
    },
  );
  setHandler(
    cancelTaskUpdate,
    ({ task, reason }) => {
      const outcome = run.cancel(task, reason, Date.now());
      if (!outcome.cancelled) return outcome;
      cancelRunning(task);
      publish();
      return outcome;
    },
    {
      description: 'Cancels one task: running instances are cancelled, dependents are skipped.',
      // An unknown task is refused before it reaches history, naming the tasks there are.
      validator: ({ task }) => void run.spec(task),
    },
  );
  setHandler(
    approveTaskUpdate,
    (request) => {
      const outcome = run.answerApproval(request, Date.now());
      inputsChanged();
      publish();
      return outcome;
    },
    {
      description:
        "Approves or rejects a task's approval gate (with a comment); a rejected task is skipped or failed.",
      validator: (request) => run.checkApproval(request),
    },
  );
}
