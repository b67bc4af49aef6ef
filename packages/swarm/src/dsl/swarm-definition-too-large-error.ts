import { codeGuard } from '@wharf/common';
import { WharfOrchestratorError } from '../orchestrator-error.js';
import type { SwarmSizeLimits } from './swarm-size-limits.js';

/**
 * A swarm definition over one of the {@link SwarmSizeLimits} (`maxBytes` of YAML or
 * `maxTasks`); nothing of it was checked. Code `DEFINITION_TOO_LARGE`.
 *
 * @example
 * ```ts
 * try {
 *   parseSwarm(text);
 * } catch (error) {
 *   if (SwarmDefinitionTooLargeError.isInstance(error)) console.error(error.limit, error.actual, error.max);
 * }
 * ```
 */
export class SwarmDefinitionTooLargeError extends WharfOrchestratorError {
  /** Which limit was exceeded. */
  readonly limit: 'maxBytes' | 'maxTasks';
  /** The limit in force. */
  readonly max: number;
  /** The size found (bytes or tasks). */
  readonly actual: number;
  readonly source: string | undefined;

  constructor(
    limit: 'maxBytes' | 'maxTasks',
    actual: number,
    max: SwarmSizeLimits[typeof limit],
    source?: string,
  ) {
    const unit = limit === 'maxBytes' ? 'bytes' : 'tasks';
    super(
      'DEFINITION_TOO_LARGE',
      `${source ?? 'the swarm definition'} is too large: ${actual} ${unit}, more than the limit of ${max} (${limit})`,
    );
    this.name = 'SwarmDefinitionTooLargeError';
    this.limit = limit;
    this.max = max;
    this.actual = actual;
    this.source = source;
  }

  /** True for a SwarmDefinitionTooLargeError from any realm. */
  static override readonly isInstance = codeGuard<SwarmDefinitionTooLargeError>(
    WharfOrchestratorError,
    'DEFINITION_TOO_LARGE',
  );
}
