import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAI } from '@ai-sdk/openai';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import type { LanguageModel } from 'ai';
import { WharfOrchestratorError } from '../orchestrator-error.js';

/** Any AI SDK language model object (not a gateway id string). */
export type WharfLanguageModel = Exclude<LanguageModel, string>;

/** Resolves model ids used in swarm definitions to AI SDK language models. */
export interface ModelRegistry {
  /** The model for `id`; throws `UNKNOWN_MODEL` with the accepted forms when it cannot. */
  resolve(id: string): WharfLanguageModel;
  /** Whether `id` can be resolved (without contacting any provider). */
  has(id: string): boolean;
  /** The price of `id`'s tokens, when one was configured (agent usage then carries a cost). */
  price?(id: string): ModelPrice | undefined;
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
  /** Environment holding provider keys. Default `process.env`. */
  env?: Record<string, string | undefined>;
  /** Prices by model id (e.g. `openai:gpt-4o-mini`), for the cost in agent usage. */
  prices?: Record<string, ModelPrice>;
}

const COMPATIBLE = /^openai-compatible:(https?:\/\/[^/:\s]+(?::\d+)?(?:\/[^:\s]*)?):(.+)$/;

/**
 * A model registry keyed by provider-prefixed ids:
 * - `openai:<model>` (needs `OPENAI_API_KEY`; `OPENAI_BASE_URL` optional),
 * - `anthropic:<model>` (needs `ANTHROPIC_API_KEY`),
 * - `openai-compatible:<base url>:<model>` for Ollama, vLLM, LM Studio and other
 *   OpenAI-compatible servers (`OPENAI_COMPATIBLE_API_KEY` optional),
 * plus any models registered by exact id. With `prices`, agent usage carries each call's cost.
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

  const build = (id: string): WharfLanguageModel | string => {
    const registered = fixed[id];
    if (registered !== undefined) return registered;
    const compatible = COMPATIBLE.exec(id);
    if (compatible !== null) {
      const [, baseURL = '', modelId = ''] = compatible;
      const apiKey = env.OPENAI_COMPATIBLE_API_KEY;
      return createOpenAICompatible({ name: 'openai-compatible', baseURL, ...(apiKey ? { apiKey } : {}) })(
        modelId,
      );
    }
    const colon = id.indexOf(':');
    const provider = colon < 0 ? '' : id.slice(0, colon);
    const modelId = id.slice(colon + 1);
    if (provider === 'openai' && modelId !== '') {
      const apiKey = env.OPENAI_API_KEY;
      if (!apiKey) return `model "${id}" needs OPENAI_API_KEY in the environment`;
      const baseURL = env.OPENAI_BASE_URL;
      return createOpenAI({ apiKey, ...(baseURL ? { baseURL } : {}) })(modelId);
    }
    if (provider === 'anthropic' && modelId !== '') {
      const apiKey = env.ANTHROPIC_API_KEY;
      if (!apiKey) return `model "${id}" needs ANTHROPIC_API_KEY in the environment`;
      return createAnthropic({ apiKey })(modelId);
    }
    return [
      `unknown model id "${id}". Use one of:`,
      '  openai:<model>  anthropic:<model>  openai-compatible:<base url>:<model>',
      ...(Object.keys(fixed).length > 0 ? [`  or a registered id: ${Object.keys(fixed).join(', ')}`] : []),
    ].join('\n');
  };

  const cache = new Map<string, WharfLanguageModel>();
  return {
    resolve(id) {
      const cached = cache.get(id);
      if (cached !== undefined) return cached;
      const model = build(id);
      if (typeof model === 'string') throw new WharfOrchestratorError('UNKNOWN_MODEL', model);
      cache.set(id, model);
      return model;
    },
    has(id) {
      return typeof build(id) !== 'string';
    },
    price(id) {
      return options.prices?.[id];
    },
  };
}
