import { ModelError } from './model-error.js';
import { modelIdFrom } from './model-id.js';

/**
 * Models that replace a definition's: `default` for every agent, `agents` by agent name. The
 * name `supervisor` also names the swarm's supervisor step, whichever agent it uses.
 */
export interface ModelOverrides {
  default?: string;
  agents: Readonly<Record<string, string>>;
}

/** One use of a model: the agent (its name, when known), whether it is the supervisor step, the definition's model. */
export interface ModelUse {
  /** The id the definition gives. */
  model: string;
  /** The agent's name in `agents:`, when known. */
  agent?: string | undefined;
  /** True for the swarm's supervisor step. */
  supervisor?: boolean | undefined;
}

const AGENT_ENTRY = /^([A-Za-z][A-Za-z0-9_-]*)=(.*)$/s;

/**
 * Reads `--model` values or `WHARF_MODEL`: entries separated by commas, each a model id (the
 * default for every agent) or `<agent>=<model id>` (one agent; `supervisor=…` also the
 * supervisor step). Every id is checked with `parseModelId`; a bad entry, two defaults or one
 * agent named twice is an `INVALID_MODEL_OVERRIDE` (or the id's own) {@link ModelError} naming
 * `source`, the option or variable it came from.
 *
 * @example
 * ```ts
 * parseModelOverrides(['echo', 'supervisor=anthropic:claude-sonnet-4-5'], '--model');
 * // { default: 'echo', agents: { supervisor: 'anthropic:claude-sonnet-4-5' } }
 * ```
 */
export function parseModelOverrides(values: readonly string[], source: string): ModelOverrides {
  const agents: Record<string, string> = {};
  let fallback: string | undefined;
  const entries = values
    .flatMap((value) => value.split(','))
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    const named = AGENT_ENTRY.exec(entry);
    const agent = named?.[1];
    const model = modelIdFrom((named?.[2] ?? entry).trim(), source);
    if (agent === undefined) {
      if (fallback !== undefined) {
        throw new ModelError(
          'INVALID_MODEL_OVERRIDE',
          `${source}: two models for every agent ("${fallback}", "${model}"); give one, and <agent>=<model> for the others`,
          { variable: source },
        );
      }
      fallback = model;
    } else {
      if (Object.hasOwn(agents, agent)) {
        throw new ModelError(
          'INVALID_MODEL_OVERRIDE',
          `${source}: agent "${agent}" is given two models ("${agents[agent]}", "${model}")`,
          { variable: source },
        );
      }
      agents[agent] = model;
    }
  }
  return { ...(fallback === undefined ? {} : { default: fallback }), agents };
}

/**
 * The model one use of an agent runs on: for the supervisor step `supervisor=…` first, then the
 * agent's own entry, then the default, else the definition's.
 *
 * @example
 * ```ts
 * modelFor({ default: 'echo', agents: {} }, { model: 'openai:gpt-4o-mini', agent: 'reviewer' }); // 'echo'
 * ```
 */
export function modelFor(overrides: ModelOverrides, use: ModelUse): string {
  const own = (name: string | undefined) =>
    name !== undefined && Object.hasOwn(overrides.agents, name) ? overrides.agents[name] : undefined;
  return (
    (use.supervisor === true ? own('supervisor') : undefined) ??
    own(use.agent) ??
    overrides.default ??
    use.model
  );
}

/**
 * Whether any model is overridden.
 *
 * @example
 * ```ts
 * hasOverrides({ agents: {} }); // false
 * ```
 */
export function hasOverrides(overrides: ModelOverrides): boolean {
  return overrides.default !== undefined || Object.keys(overrides.agents).length > 0;
}
