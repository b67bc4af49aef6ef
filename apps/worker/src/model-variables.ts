import { ModelError, type ModelOverrides, parseModelOverrides, summarizerId } from '@wharf/orchestrator/node';
import { z } from 'zod';

/** Turns a ModelError about `variable` into an issue of it (the path already names the variable). */
function issueOf(error: unknown, variable: string, context: z.RefinementCtx): typeof z.NEVER {
  if (!ModelError.isInstance(error)) throw error;
  const prefix = `${variable}: `;
  const message = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
  context.addIssue({ code: 'custom', message });
  return z.NEVER;
}

/**
 * `WHARF_MODEL`: the models this worker runs agents on instead of their definitions' — a model
 * id for every agent and/or `<agent>=<model id>` entries, comma-separated (`parseModelOverrides`).
 * Empty counts as unset; a malformed entry is an issue of the variable.
 *
 * @example
 * ```ts
 * modelOverridesVariable.parse('echo,supervisor=anthropic:claude-sonnet-4-5');
 * ```
 */
export const modelOverridesVariable = z.preprocess(
  (value) => (typeof value === 'string' && value.trim() === '' ? undefined : value),
  z
    .string()
    .transform((text, context): ModelOverrides => {
      try {
        return parseModelOverrides([text], 'WHARF_MODEL');
      } catch (error) {
        return issueOf(error, 'WHARF_MODEL', context);
      }
    })
    .optional(),
);

/**
 * `WHARF_SUMMARIZER`: the model id that summarizes a script's stdout under
 * `truncation_strategy: summary`. Empty counts as unset; a malformed id is an issue of the variable.
 *
 * @example
 * ```ts
 * summarizerVariable.parse('openai:gpt-4o-mini');
 * ```
 */
export const summarizerVariable = z.preprocess(
  (value) => (typeof value === 'string' && value.trim() === '' ? undefined : value),
  z
    .string()
    .transform((text, context) => {
      try {
        return summarizerId(text, 'WHARF_SUMMARIZER') ?? z.NEVER;
      } catch (error) {
        return issueOf(error, 'WHARF_SUMMARIZER', context);
      }
    })
    .optional(),
);
