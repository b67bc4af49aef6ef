import { loadSwarm } from '../load-swarm.js';
import { definitionWithModels, type ModelOptions, modelChoice } from '../model-options.js';
import { type CliIo, printJson } from '../output.js';

/** Options of {@link validateCommand}. */
export interface ValidateOptions extends ModelOptions {
  json: boolean;
  /** Tools registered with the workers (`--tools`, `WHARF_TOOLS`); undefined when not known. */
  tools?: readonly string[] | undefined;
  /** Most swarm files `swarm:` tasks may nest below this one (`--max-swarm-depth`, default 4). */
  maxSwarmDepth?: number | undefined;
}

/**
 * `wharf validate <swarm.yaml>`: reads and checks a definition (every problem with its line and
 * column), with the models `--model` or `WHARF_MODEL` choose; when either names one, every model
 * the swarm would run on is checked here, keys included. Prints the normalised definition with
 * `--json`, else one line. An agent's tool is checked against what `wharf run` offers: the
 * built-ins, and the tools `--tools` (`WHARF_TOOLS`) names as the workers'.
 */
export async function validateCommand(file: string, options: ValidateOptions, io: CliIo): Promise<void> {
  const models = modelChoice(options, process.env);
  // What `wharf run` offers: its own worker has the built-ins only, unless --tools names more.
  const loaded = await loadSwarm(file, {
    maxDepth: options.maxSwarmDepth,
    tools: options.tools ?? [],
  });
  const check = (options.model?.length ?? 0) > 0 || Boolean(process.env.WHARF_MODEL?.trim());
  const definition = definitionWithModels(loaded, models, { check });
  if (options.json) printJson(io, definition);
  else io.out(`${file}: ok — swarm ${definition.name}, ${Object.keys(definition.tasks).length} task(s)`);
}
