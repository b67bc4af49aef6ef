// Workflow-safe: how a swarm whose tasks failed ends its workflow. Pure, no imports with effects.

import type { TaskProgress } from './progress-contracts.js';
import type { SwarmResult } from './swarm-contracts.js';
import { isFailure } from './task-status.js';

/**
 * The `ApplicationFailure` type a swarm's workflow fails with when tasks failed (unless the
 * definition says `on_failure: complete`). The failure is non-retryable and its first detail
 * is the whole {@link SwarmResult}; `WharfClient.result` returns that result.
 *
 * @example
 * ```ts
 * if (error instanceof WorkflowFailedError && error.cause instanceof ApplicationFailure &&
 *     error.cause.type === swarmFailedErrorType) console.log(error.cause.details?.[0]);
 * ```
 */
export const swarmFailedErrorType = 'WharfSwarmFailed';

/**
 * Every `ApplicationFailure` type Wharf raises, defined once. `swarmFailed` ends a workflow
 * whose tasks failed; `spawnHelperDied` is a retryable activity failure (a script or shell
 * command was lost with the helper process that started it, and ended: the step runs again);
 * the others are non-retryable activity failures that no retry can fix: a definition the
 * worker cannot run, a model id the registry does not know, a store that refused the caller,
 * and work of another data plane than the worker's.
 *
 * @example
 * ```ts
 * throw ApplicationFailure.nonRetryable('supervisor agent missing', wharfFailureTypes.invalidDefinition);
 * ```
 */
export const wharfFailureTypes = Object.freeze({
  swarmFailed: swarmFailedErrorType,
  invalidDefinition: 'WharfInvalidDefinition',
  definitionRef: 'WharfDefinitionRef',
  unknownModel: 'WharfUnknownModel',
  forbidden: 'WharfForbidden',
  wrongDataPlane: 'WharfWrongDataPlane',
  spawnHelperDied: 'WharfSpawnHelperDied',
} as const);

/**
 * The failure types an activity retry policy should not retry: Wharf's own, and those of a
 * payload the worker's codec cannot open (`@wharf/codec`'s `codecNonRetryableErrorTypes`: an
 * input under a key id its ring lacks, or one that fails authentication), which no retry mends.
 *
 * @example
 * ```ts
 * proxyActivities<WharfActivities>({ retry: { nonRetryableErrorTypes: [...nonRetryableFailureTypes] } });
 * ```
 */
export const nonRetryableFailureTypes: readonly string[] = Object.freeze([
  wharfFailureTypes.invalidDefinition,
  wharfFailureTypes.forbidden,
  wharfFailureTypes.unknownModel,
  wharfFailureTypes.wrongDataPlane,
  'UnknownKeyIdError',
  'PayloadAuthenticationError',
  'InvalidEncryptedPayloadError',
]);

/** True for a task that failed or was cancelled (see `isFailure`): reports list these first, with their reasons. */
export function isTaskFailure(task: Pick<TaskProgress, 'status'>): boolean {
  return isFailure(task.status);
}

/**
 * The one-line message of a failed swarm's workflow failure: which tasks failed and why
 * (at most five, each reason cut to 160 characters), and the supervisor's error if any.
 *
 * @example
 * ```ts
 * describeSwarmFailure(result);
 * // 'swarm repo-health failed: licences failed (exit 1 · missing LICENSE in apps/cli)'
 * ```
 */
export function describeSwarmFailure(result: Pick<SwarmResult, 'swarm' | 'tasks' | 'supervisor'>): string {
  const failures = result.tasks.filter(isTaskFailure);
  const parts = failures
    .slice(0, 5)
    .map((task) => `${task.task} ${task.status}${task.reason ? ` (${cut(task.reason, 160)})` : ''}`);
  if (failures.length > 5) parts.push(`and ${failures.length - 5} more`);
  if (result.supervisor?.error !== undefined) parts.push(`supervisor: ${cut(result.supervisor.error, 160)}`);
  if (parts.length === 0) {
    const notDone = result.tasks.filter((task) => task.status !== 'done').map((task) => task.task);
    parts.push(`not done: ${notDone.join(', ') || 'none'}`);
  }
  return `swarm ${result.swarm} failed: ${parts.join('; ')}`;
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
