import { codeGuard } from '@wharf/common';
import { WharfOrchestratorError } from '../orchestrator-error.js';

/**
 * A malformed `when:` condition, with the position where parsing stopped and what was
 * expected there. Code `INVALID_CONDITION`.
 *
 * @example
 * ```ts
 * try {
 *   parseWhen('†data.x ==');
 * } catch (error) {
 *   if (InvalidConditionError.isInstance(error)) console.error(error.position, error.expected);
 * }
 * ```
 */
export class InvalidConditionError extends WharfOrchestratorError {
  readonly condition: string;
  /** Offset in `condition` (0-based) where parsing stopped. */
  readonly position: number;
  readonly expected: string;

  constructor(options: { condition: string; position: number; expected: string }) {
    super(
      'INVALID_CONDITION',
      `invalid condition at position ${options.position + 1}: expected ${options.expected} in "${options.condition}"`,
    );
    this.name = 'InvalidConditionError';
    this.condition = options.condition;
    this.position = options.position;
    this.expected = options.expected;
  }

  /** True for an InvalidConditionError from any realm. */
  static override readonly isInstance = codeGuard<InvalidConditionError>(
    WharfOrchestratorError,
    'INVALID_CONDITION',
  );
}
