import { readFile } from 'node:fs/promises';
import {
  parseSwarm,
  type SwarmDefinition,
  SwarmDefinitionError,
  SwarmDefinitionTooLargeError,
} from '@wharf/orchestrator';
import { CliError } from '../cli-error.js';

/**
 * Reads and validates a swarm file; a bad definition becomes a `CliError` whose message lists
 * every problem with its line, column and field path; so does one over the size limits.
 * `tools` names the tools registered with the workers (`--tools`, `WHARF_TOOLS`); without
 * it, names that are not Wharf's own are left to the worker's check.
 *
 * @example
 * ```ts
 * const definition = await loadSwarm('examples/repo-health.yaml', { tools: ['lookup'] });
 * ```
 */
export async function loadSwarm(
  path: string,
  options: { tools?: readonly string[] | undefined } = {},
): Promise<SwarmDefinition> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new CliError('NOT_FOUND', `cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
  try {
    return parseSwarm(text, {
      source: path,
      ...(options.tools === undefined ? {} : { tools: options.tools }),
    });
  } catch (error) {
    if (SwarmDefinitionError.isInstance(error) || SwarmDefinitionTooLargeError.isInstance(error)) {
      throw new CliError('INVALID_DEFINITION', error.message, { cause: error });
    }
    throw error;
  }
}
