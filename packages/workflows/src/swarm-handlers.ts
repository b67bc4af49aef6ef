// The queries, signal and updates of a swarm run. Deterministic: handlers change the run's
// SwarmState only through the pure functions of ../swarm/ and tell the workflow, through its
// hooks, what to wake, cancel or publish.
import { setHandler } from '@temporalio/workflow';
import {
  addInputs,
  answerTaskApproval,
  cancelTask,
  checkApproval,
  checkInputs,
  liveProgress,
  noteToolCall,
  type SwarmState,
  taskSpec,
} from '@wharf/swarm';
import {
  addInputSignal,
  addInputsUpdate,
  approveTaskUpdate,
  cancelTaskUpdate,
  progressQuery,
  stateQuery,
  toolCallNoticeSignal,
} from './handler-definitions.js';

/** What the handlers of a swarm run reach beyond its {@link SwarmState}. */
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
 * registerSwarmHandlers(state, port.hooks);
 * ```
 */
export function registerSwarmHandlers(state: SwarmState, hooks: SwarmHandlerHooks): void {
  const { cancelRunning, publish, inputsChanged } = hooks;
  setHandler(progressQuery, () => liveProgress(state), {
    description:
      'Per task: status, loop instances done (those of the step in flight included), bytes captured, out ids, what it waits for.',
  });
  setHandler(stateQuery, () => state.channels.snapshot(), {
    description: 'The durable channel snapshot: results per task (refs, sizes, exit codes) and barriers.',
  });
  setHandler(
    addInputSignal,
    ({ key, value }) => {
      state.context.addInput(key, value, new Date().toISOString());
      inputsChanged();
    },
    { description: 'Adds a value for †input.<key>; tasks waiting on it become ready.' },
  );
  setHandler(
    toolCallNoticeSignal,
    (notice) => {
      state.pendingCalls = noteToolCall(state.pendingCalls, notice);
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
      const outcome = addInputs(state, request, new Date().toISOString());
      inputsChanged();
      return outcome;
    },
    {
      description:
        'Adds †input.* values; tasks waiting on them become ready. A key already set is refused unless replace is true.',
      validator: (request) => checkInputs(state, request),
    },
  );
  setHandler(
    cancelTaskUpdate,
    ({ task, reason }) => {
      const outcome = cancelTask(state, task, reason, Date.now());
      if (!outcome.cancelled) return outcome;
      cancelRunning(task);
      publish();
      return outcome;
    },
    {
      description: 'Cancels one task: running instances are cancelled, dependents are skipped.',
      // An unknown task is refused before it reaches history, naming the tasks there are.
      validator: ({ task }) => void taskSpec(state, task),
    },
  );
  setHandler(
    approveTaskUpdate,
    (request) => {
      const outcome = answerTaskApproval(state, request, Date.now());
      inputsChanged();
      publish();
      return outcome;
    },
    {
      description:
        "Approves or rejects a task's approval gate (with a comment); a rejected task is skipped or failed.",
      validator: (request) => checkApproval(state, request),
    },
  );
}
