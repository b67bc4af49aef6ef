import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { echoModel } from './echo-model.js';
import { loadScriptedModel } from './load-scripted-model.js';
import { ModelError } from './model-error.js';
import { type ModelSpec, parseModelId } from './model-id.js';
import { type ModelOverrides, type ModelUse, modelFor } from './model-overrides.js';
import { providerErrors, type WharfLanguageModel } from './provider-errors.js';

export type { WharfLanguageModel };

/** Resolves model ids used in swarm definitions to AI SDK language models. */
export interface ModelRegistry {
  /**
   * The model for `id`; throws a `ModelError` when it cannot (`UNKNOWN_PROVIDER`,
   * `INVALID_MODEL_ID`, `MISSING_MODEL_KEY` naming the variable, `INVALID_SCRIPTED_MODEL`).
   */
  resolve(id: string): WharfLanguageModel;
  /** Whether `id` can be resolved (without contacting any provider). */
  has(id: string): boolean;
  /** The price of `id`'s tokens, when one was configured (agent usage then carries a cost). */
  price?(id: string): ModelPrice | undefined;
  /**
   * The id one use of an agent runs on, when this registry overrides the definition's models
   * (a worker's `WHARF_MODEL`); absent or returning `use.model` when it does not.
   */
  modelFor?(use: ModelUse): string;
}

/** US dollars per million tokens. */
export interface ModelPrice {
  inputPerMillion: number;
  outputPerMillion: number;
}

/** Options of {@link createModelRegistry}. */
export interface ModelRegistryOptions {
  /** Models registered by exact id; checked first (tests register AI SDK mock models here). */
  models?: Record<string, WharfLanguageModel>;
  /** Environment holding provider keys and base URLs. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Prices by model id (e.g. `openai:gpt-4o-mini`), for the cost in agent usage. */
  prices?: Record<string, ModelPrice>;
  /**
   * Models that replace the definitions' on this worker (`parseModelOverrides`, e.g. from
   * `WHARF_MODEL`): agent tasks and the supervisor ask {@link ModelRegistry.modelFor}.
   */
  overrides?: ModelOverrides;
  /** Where relative `scripted:<file>` paths start. Default the process's working directory. */
  cwd?: string;
}

/** The environment variable holding each provider's API key. */
export const providerKeyVariables = Object.freeze({
  openai: 'OPENAI_API_KEY',
  anthropic: 'ANTHROPIC_API_KEY',
  'openai-compatible': 'OPENAI_COMPATIBLE_API_KEY',
} as const);

/**
 * A model registry keyed by provider-prefixed ids (see `parseModelId`):
 * - `openai:<model>`: OpenAI's Responses API; `OPENAI_API_KEY`, `OPENAI_BASE_URL` optional;
 * - `anthropic:<model>`: `ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL` optional;
 * - `openai-compatible:<base url>:<model>`: chat completions, for Ollama, vLLM, llama.cpp's
 *   server, LM Studio (`OPENAI_COMPATIBLE_API_KEY` optional);
 * - `echo` and `scripted:<file>`: offline models that ship with Wharf;
 * plus any models registered by exact id. A key is looked for only when its model is resolved,
 * and its absence is a `MISSING_MODEL_KEY` error naming the variable. Provider models report
 * HTTP failures with the model id and, for a refused key, the variable to check. With
 * `prices`, agent usage carries each call's cost; with `overrides`, this worker runs agents on
 * other models than their definitions name.
 *
 * @example
 * ```ts
 * const models = createModelRegistry();
 * const model = models.resolve('openai-compatible:http://127.0.0.1:11434/v1:llama3.1:8b');
 * ```
 */
export function createModelRegistry(options: ModelRegistryOptions = {}): ModelRegistry {
  const env = options.env ?? process.env;
  const fixed = options.models ?? {};

  const build = (id: string): WharfLanguageModel => {
    const registered = fixed[id];
    if (registered !== undefined) return registered;
    let spec: ModelSpec;
    try {
      spec = parseModelId(id);
    } catch (error) {
      const names = Object.keys(fixed);
      if (!ModelError.isInstance(error) || names.length === 0) throw error;
      throw new ModelError(error.code, `${error.message}, or a registered id: ${names.join(', ')}`, {
        modelId: id,
      });
    }
    switch (spec.provider) {
      case 'echo':
        return echoModel();
      case 'scripted':
        return loadScriptedModel(spec.file, options.cwd === undefined ? {} : { cwd: options.cwd });
      case 'openai-compatible': {
        const apiKey = env.OPENAI_COMPATIBLE_API_KEY;
        const model = createOpenAICompatible({
          name: 'openai-compatible',
          baseURL: spec.baseURL,
          ...(apiKey ? { apiKey } : {}),
        })(spec.model);
        return providerErrors(model, { id, keyVariable: providerKeyVariables[spec.provider] });
      }
      case 'openai': {
        const apiKey = requireKey(env, id, 'openai');
        const baseURL = env.OPENAI_BASE_URL;
        const model = createOpenAI({ apiKey, ...(baseURL ? { baseURL } : {}) })(spec.model);
        return providerErrors(model, { id, keyVariable: providerKeyVariables.openai });
      }
      case 'anthropic': {
        const apiKey = requireKey(env, id, 'anthropic');
        const baseURL = env.ANTHROPIC_BASE_URL;
        const model = createAnthropic({ apiKey, ...(baseURL ? { baseURL } : {}) })(spec.model);
        return providerErrors(model, { id, keyVariable: providerKeyVariables.anthropic });
      }
    }
  };

  // Scripted models are read again at each resolve, so an edited file is picked up.
  const cache = new Map<string, WharfLanguageModel>();
  const overrides = options.overrides;
  const resolve = (id: string): WharfLanguageModel => {
    const cached = cache.get(id);
    if (cached !== undefined) return cached;
    const model = build(id);
    if (!id.startsWith('scripted:') || fixed[id] !== undefined) cache.set(id, model);
    return model;
  };
  return {
    resolve,
    has(id) {
      try {
        resolve(id);
        return true;
      } catch (error) {
        if (ModelError.isInstance(error)) return false;
        throw error;
      }
    },
    price(id) {
      return options.prices?.[id];
    },
    ...(overrides === undefined ? {} : { modelFor: (use: ModelUse) => modelFor(overrides, use) }),
  };
}

function requireKey(
  env: Record<string, string | undefined>,
  id: string,
  provider: keyof typeof providerKeyVariables,
): string {
  const variable = providerKeyVariables[provider];
  const key = env[variable];
  if (key === undefined || key === '') {
    throw new ModelError(
      'MISSING_MODEL_KEY',
      `model "${id}" needs ${variable} in the environment (or use the offline model "echo")`,
      { modelId: id, variable },
    );
  }
  return key;
}
