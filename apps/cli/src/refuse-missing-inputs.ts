import { MissingInputsError, missingInputs, type SwarmDefinition } from '@wharf/orchestrator';
import { CliError } from './cli-error.js';

/**
 * `wharf run` without `--wait-for-inputs`: refuses (exit 2) a swarm that reads `†input.*` values
 * `--input` did not give, before any server or worker starts, naming each missing input, where
 * it is read, and how to give it. It would otherwise start and fail once nothing else can run.
 *
 * @example
 * ```ts
 * refuseMissingInputs(definition, parseInputs(options.input), options.waitForInputsMs);
 * ```
 */
export function refuseMissingInputs(
  definition: SwarmDefinition,
  inputs: Record<string, unknown>,
  waitForInputsMs: number | undefined,
): void {
  if ((waitForInputsMs ?? 0) > 0) return;
  const missing = missingInputs(definition, inputs);
  if (missing.length === 0) return;
  const keys = [...new Set(missing.map((input) => input.reference.replace(/^†input\./, '').split('.')[0]))];
  const error = new MissingInputsError(definition.name, missing);
  throw new CliError(
    'USAGE',
    `${error.message}\ngive ${keys.map((key) => `--input ${key}=…`).join(' ')}, or run with --wait-for-inputs <duration> and add them with \`wharf input <workflowId> key=value\``,
    { cause: error },
  );
}
