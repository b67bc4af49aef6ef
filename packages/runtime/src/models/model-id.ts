import { ModelError } from './model-error.js';

/** What a model id names, once parsed by {@link parseModelId}. */
export type ModelSpec =
  | { provider: 'openai'; model: string }
  | { provider: 'anthropic'; model: string }
  | { provider: 'openai-compatible'; baseURL: string; model: string }
  | { provider: 'echo' }
  | { provider: 'scripted'; file: string };

/** The providers Wharf builds models for, as written before the first `:` of an id. */
export const modelProviders = ['openai', 'anthropic', 'openai-compatible', 'echo', 'scripted'] as const;

/** The accepted forms, as error messages list them. */
export const MODEL_ID_FORMS =
  'openai:<model>, anthropic:<model>, openai-compatible:<base url>:<model>, echo, scripted:<file>';

const COMPATIBLE = /^openai-compatible:(https?:\/\/[^/:\s]+(?::\d+)?(?:\/[^:\s]*)?):(.+)$/;

/**
 * Parses a model id without building anything or reading the environment:
 * `openai:<model>`, `anthropic:<model>`, `openai-compatible:<base url>:<model>` (the model may
 * hold colons: `…/v1:llama3.1:8b`), `echo`, `scripted:<file>`. A provider Wharf does not know is
 * `UNKNOWN_PROVIDER`; anything else malformed is `INVALID_MODEL_ID`; both say what is accepted.
 *
 * @example
 * ```ts
 * parseModelId('openai-compatible:http://127.0.0.1:11434/v1:llama3.1:8b');
 * // { provider: 'openai-compatible', baseURL: 'http://127.0.0.1:11434/v1', model: 'llama3.1:8b' }
 * ```
 */
export function parseModelId(id: string): ModelSpec {
  const invalid = (why: string) =>
    new ModelError('INVALID_MODEL_ID', `model id "${id}" ${why}; use one of: ${MODEL_ID_FORMS}`, {
      modelId: id,
    });
  if (id.trim() === '') throw invalid('is empty');
  if (id !== id.trim()) throw invalid('has spaces around it');
  if (id === 'echo') return { provider: 'echo' };
  const colon = id.indexOf(':');
  if (colon < 0) throw invalid('names no provider');
  const provider = id.slice(0, colon);
  const rest = id.slice(colon + 1);
  switch (provider) {
    case 'openai':
    case 'anthropic':
      if (rest.trim() === '') throw invalid(`names no model after "${provider}:"`);
      return { provider, model: rest };
    case 'openai-compatible': {
      const match = COMPATIBLE.exec(id);
      // `…//host:11434/v1` with no model would otherwise read as host `…//host`, model `11434/v1`.
      if (match === null || /^\d+(?:\/|$)/.test(match[2] ?? '')) {
        throw invalid(
          'is not openai-compatible:<base url>:<model> (e.g. openai-compatible:http://127.0.0.1:11434/v1:llama3.1:8b)',
        );
      }
      return { provider, baseURL: match[1] ?? '', model: match[2] ?? '' };
    }
    case 'scripted':
      if (rest.trim() === '') throw invalid('names no file after "scripted:"');
      return { provider, file: rest };
    case 'echo':
      throw invalid('takes nothing after "echo"');
    default:
      throw new ModelError(
        'UNKNOWN_PROVIDER',
        `model id "${id}": unknown provider "${provider}"; Wharf knows ${modelProviders.join(', ')} (${MODEL_ID_FORMS})`,
        { modelId: id },
      );
  }
}

/**
 * `parseModelId`, for an id given by an option or a variable: a bad id is the same
 * `ModelError`, its message led by `source` and its `variable` set to it. Returns the id.
 *
 * @example
 * ```ts
 * modelIdFrom('gpt-4', 'WHARF_SUMMARIZER'); // throws 'WHARF_SUMMARIZER: model id "gpt-4" names no provider; …'
 * ```
 */
export function modelIdFrom(id: string, source: string): string {
  try {
    parseModelId(id);
  } catch (error) {
    if (!ModelError.isInstance(error)) throw error;
    throw new ModelError(error.code, `${source}: ${error.message}`, {
      modelId: id,
      variable: source,
      cause: error,
    });
  }
  return id;
}
