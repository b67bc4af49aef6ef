import { resolve } from 'node:path';
import type { SwarmDefinition } from '@wharf/orchestrator';
import {
  applyModelOverrides,
  checkSwarmModels,
  createModelRegistry,
  hasOverrides,
  ModelError,
  type ModelOverrides,
  parseModelOverrides,
  summarizerId,
} from '@wharf/orchestrator/node';
import { CliError } from './cli-error.js';

/** The model options of `run`, `validate` and `dev`, as commander gives them. */
export interface ModelOptions {
  /** `--model` values (repeatable, comma-separated entries); else `WHARF_MODEL`. */
  model?: string[] | undefined;
  /** `--summarizer`; else `WHARF_SUMMARIZER`. */
  summarizer?: string | undefined;
}

/** The models a command runs with: overrides, where they came from, and the summarizer's id. */
export interface ModelChoice {
  overrides: ModelOverrides;
  /** `--model` or `WHARF_MODEL`, for messages. */
  source: string;
  /** `--summarizer`, else `WHARF_SUMMARIZER`, else the model `--model` gives every agent. */
  summarizer?: string;
}

/**
 * Reads `--model` (else `WHARF_MODEL`) and `--summarizer` (else `WHARF_SUMMARIZER`). A
 * relative `scripted:<file>` becomes absolute, so the worker finds it wherever it runs. A bad
 * entry is a usage error (exit 2) naming the option or variable.
 *
 * @example
 * ```ts
 * modelChoice({ model: ['echo'] }, process.env); // { overrides: { default: 'echo', agents: {} }, source: '--model', summarizer: 'echo' }
 * ```
 */
export function modelChoice(
  options: ModelOptions,
  env: Readonly<Record<string, string | undefined>>,
): ModelChoice {
  const given = options.model !== undefined && options.model.length > 0;
  const source = given ? '--model' : 'WHARF_MODEL';
  const values = given ? (options.model ?? []) : [env.WHARF_MODEL ?? ''];
  try {
    const parsed = parseModelOverrides(values, source);
    const overrides: ModelOverrides = {
      ...(parsed.default === undefined ? {} : { default: absolute(parsed.default) }),
      agents: Object.fromEntries(Object.entries(parsed.agents).map(([name, id]) => [name, absolute(id)])),
    };
    const summarizer =
      summarizerId(options.summarizer, '--summarizer') ??
      (options.summarizer === undefined
        ? summarizerId(env.WHARF_SUMMARIZER, 'WHARF_SUMMARIZER')
        : undefined) ??
      overrides.default;
    return { overrides, source, ...(summarizer === undefined ? {} : { summarizer: absolute(summarizer) }) };
  } catch (error) {
    if (ModelError.isInstance(error)) throw new CliError('USAGE', error.message, { cause: error });
    throw error;
  }
}

/**
 * The definition a command runs: with the chosen overrides applied (they travel with the swarm
 * to whichever worker runs it), its agents' models checked when `check` says so: every model
 * an agent that runs uses must be known, its file readable and its key in the environment, and
 * so must the summarizer's when a script may be summarized. Each problem names the agent's
 * field and the variable to set (exit 2).
 *
 * @example
 * ```ts
 * const definition = definitionWithModels(await loadSwarm(file), modelChoice(options, process.env), { check: true });
 * ```
 */
export function definitionWithModels(
  definition: SwarmDefinition,
  choice: ModelChoice,
  options: { check: boolean },
): SwarmDefinition {
  let chosen: SwarmDefinition;
  try {
    chosen = hasOverrides(choice.overrides)
      ? applyModelOverrides(definition, choice.overrides, choice.source)
      : definition;
  } catch (error) {
    if (ModelError.isInstance(error)) throw new CliError('USAGE', error.message, { cause: error });
    throw error;
  }
  if (!options.check) return chosen;
  const problems = checkSwarmModels(chosen, createModelRegistry());
  if (choice.summarizer !== undefined && summarizes(chosen)) {
    try {
      createModelRegistry().resolve(choice.summarizer);
    } catch (error) {
      if (!ModelError.isInstance(error)) throw error;
      problems.push({ path: 'summarizer', agent: '', model: choice.summarizer, error });
    }
  }
  if (problems.length > 0) {
    const lines = problems.map((problem) => `${problem.path}: ${problem.error.message}`);
    throw new CliError('INVALID_DEFINITION', `cannot run ${chosen.name}:\n  ${lines.join('\n  ')}`);
  }
  return chosen;
}

/** Whether a script of the swarm may be summarized (`truncation_strategy: summary`). */
function summarizes(definition: SwarmDefinition): boolean {
  const limits = [definition.limits, ...Object.values(definition.tasks).map((task) => task.limits)];
  return limits.some((entry) => entry?.truncation_strategy === 'summary');
}

/** `scripted:<relative file>` made absolute against the working directory; other ids as they are. */
function absolute(id: string): string {
  return id.startsWith('scripted:') ? `scripted:${resolve(id.slice('scripted:'.length))}` : id;
}
