import { type EvidenceMiddlewareOptions, evidenceMiddleware } from '@wharf/evidence';
import { type LanguageModelMiddleware, wrapLanguageModel } from 'ai';
import type { WharfLanguageModel } from '../models/model-registry.js';

/** What {@link evidenceMounted} needs beside the model. */
export interface EvidenceMountedOptions extends Omit<EvidenceMiddlewareOptions, 'onMount'> {
  /** Told, for each model call, how many bytes of evidence were mounted into its prompt. */
  onMeasure?: (bytes: number) => void;
}

/**
 * A model whose every call has its `[EVIDENCE:…]` markers mounted under the byte budget by
 * `evidenceMiddleware`, just before the call: what the caller stores (its messages, the
 * response) keeps only the markers. `onMeasure` is told the bytes mounted into each call.
 *
 * @example
 * ```ts
 * const model = evidenceMounted(base, { compiler, runId, ownerId, budgetBytes: 32_000, onMeasure: console.log });
 * ```
 */
export function evidenceMounted(
  model: WharfLanguageModel,
  options: EvidenceMountedOptions,
): WharfLanguageModel {
  const { onMeasure, ...mount } = options;
  let before = 0;
  // Runs first (the outermost middleware): the size of the prompt as the caller gave it.
  const measure: LanguageModelMiddleware = {
    specificationVersion: 'v4',
    transformParams: async ({ params }) => {
      before = byteLength(JSON.stringify(params.prompt));
      return params;
    },
  };
  return wrapLanguageModel({
    model,
    middleware: [
      measure,
      evidenceMiddleware({
        ...mount,
        onMount: (result) => onMeasure?.(Math.max(0, byteLength(JSON.stringify(result.messages)) - before)),
      }),
    ],
  });
}

function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
