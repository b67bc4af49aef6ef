import type { LanguageModelMiddleware } from 'ai';
import { type MountEvidenceOptions, type MountResult, mountEvidence } from './mount-evidence.js';

type TransformParams = NonNullable<LanguageModelMiddleware['transformParams']>;
type Prompt = Awaited<ReturnType<TransformParams>>['prompt'];

/**
 * Options of {@link evidenceMiddleware}.
 *
 * @example
 * ```ts
 * const options: EvidenceMiddlewareOptions = { compiler, runId: '48', ownerId: 'o1',
 *   onMount: (result) => log(result.markers) };
 * ```
 */
export interface EvidenceMiddlewareOptions extends MountEvidenceOptions {
  /** Called after each mount with what was expanded, refused or malformed. */
  onMount?: (result: MountResult<Prompt[number]>) => void;
}

/**
 * AI SDK language-model middleware that mounts worker evidence just before every model call
 * (each step of a tool loop). The prompt the model receives has each `[EVIDENCE:…]` marker
 * followed by that worker's compiled evidence; the caller's messages, and the response
 * messages it will persist, keep only the compact markers.
 *
 * @example
 * ```ts
 * import { generateText, wrapLanguageModel } from 'ai';
 * const model = wrapLanguageModel({
 *   model: baseModel,
 *   middleware: evidenceMiddleware({ compiler, runId: '48', ownerId: 'o1', budgetBytes: 32_000 }),
 * });
 * const { text } = await generateText({ model, messages: history });
 * ```
 */
export function evidenceMiddleware(options: EvidenceMiddlewareOptions): LanguageModelMiddleware {
  return {
    specificationVersion: 'v4',
    transformParams: async ({ params }) => {
      const result = await mountEvidence(params.prompt, options);
      options.onMount?.(result);
      return { ...params, prompt: result.messages };
    },
  };
}
