import { codeGuard } from '@wharf/common';
import { WharfOrchestratorError } from '../orchestrator-error.js';
import type { MissingInput } from './missing-inputs.js';

/**
 * A swarm started without the `†input.*` values its tasks read, and with no time to receive
 * them while it runs (`waitForInputsMs`): it would fail at run time, so it was not started.
 * Code `MISSING_INPUT`; `missing` names each reference and the fields that read it.
 *
 * @example
 * ```ts
 * try {
 *   await wharf.startSwarm(definition, {});
 * } catch (error) {
 *   if (MissingInputsError.isInstance(error)) console.error(error.missing.map((input) => input.reference));
 * }
 * ```
 */
export class MissingInputsError extends WharfOrchestratorError {
  readonly missing: readonly MissingInput[];

  constructor(swarm: string, missing: readonly MissingInput[]) {
    const lines = missing.map((input) => `  ${input.reference} (read by ${input.readers.join(', ')})`);
    super(
      'MISSING_INPUT',
      `swarm ${swarm} needs ${missing.length === 1 ? 'an input' : 'inputs'} it was not given:\n${lines.join('\n')}`,
    );
    this.name = 'MissingInputsError';
    this.missing = missing;
  }

  /** True for a MissingInputsError from any realm. */
  static override readonly isInstance = codeGuard<MissingInputsError>(
    WharfOrchestratorError,
    'MISSING_INPUT',
  );
}
