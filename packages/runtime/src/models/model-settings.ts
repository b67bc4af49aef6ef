import type { Summarizer } from '@wharf/stdio-limits';
import { createAiSummarizer } from '@wharf/stdio-limits/ai';
import { modelIdFrom } from './model-id.js';
import { type ModelOverrides, parseModelOverrides } from './model-overrides.js';
import type { ModelRegistry } from './model-registry.js';

/** A worker's model settings: its overrides and its summarizer's model id. */
export interface ModelSettings {
  /** From `WHARF_MODEL`; undefined when it is unset or empty. */
  overrides?: ModelOverrides;
  /** `WHARF_SUMMARIZER`, else the model `WHARF_MODEL` gives every agent; undefined when neither. */
  summarizer?: string;
}

/**
 * Reads `WHARF_MODEL` (see `parseModelOverrides`) and `WHARF_SUMMARIZER` (a model id) from an
 * environment; empty counts as unset. A malformed entry or id is a `ModelError` naming the
 * variable; keys are not looked for here, only when a model is used.
 *
 * @example
 * ```ts
 * modelSettingsFromEnv({ WHARF_MODEL: 'echo' }); // { overrides: { default: 'echo', agents: {} }, summarizer: 'echo' }
 * ```
 */
export function modelSettingsFromEnv(env: Readonly<Record<string, string | undefined>>): ModelSettings {
  const model = env.WHARF_MODEL?.trim();
  const overrides = model ? parseModelOverrides([model], 'WHARF_MODEL') : undefined;
  const summarizer = summarizerId(env.WHARF_SUMMARIZER, 'WHARF_SUMMARIZER') ?? overrides?.default;
  return {
    ...(overrides === undefined ? {} : { overrides }),
    ...(summarizer === undefined ? {} : { summarizer }),
  };
}

/**
 * A summarizer model id as given (`--summarizer`, `WHARF_SUMMARIZER`), checked; empty is unset.
 * A malformed id is a `ModelError` naming `source`.
 *
 * @example
 * ```ts
 * summarizerId('echo', '--summarizer'); // 'echo'
 * ```
 */
export function summarizerId(value: string | undefined, source: string): string | undefined {
  const id = value?.trim();
  return id ? modelIdFrom(id, source) : undefined;
}

/**
 * A summarizer for `truncation_strategy: summary` that asks the model `id` of `models`,
 * resolved when first needed: a missing key then makes the summary say why it fell back to
 * the output's first and last bytes, instead of stopping the worker from starting.
 *
 * @example
 * ```ts
 * createWharfWorker({ …, summarizer: registrySummarizer(models, 'openai:gpt-4o-mini') });
 * ```
 */
export function registrySummarizer(models: ModelRegistry, id: string): Summarizer {
  let summarize: Summarizer | undefined;
  return async (request) => {
    summarize ??= createAiSummarizer({ model: models.resolve(id) });
    return summarize(request);
  };
}
