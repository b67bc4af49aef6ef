import type { OutputRef, OutputStore } from '@wharf/output-store';

/** Answers longer than this many bytes are EMITted by default; the result carries a ref and a head. */
export const DEFAULT_INLINE_ANSWER_BYTES = 8 * 1024;

/**
 * The supervisor's answer as the swarm result carries it: inline when it fits `inlineBytes`,
 * else stored in the output store (under `idempotencyKey`, so a retry stores it once) and
 * replaced by its first 2 KiB and the out id.
 *
 * @example
 * ```ts
 * const { answer, answerRef } = await supervisorAnswer(store, { text, ownerId, runId, model, idempotencyKey });
 * ```
 */
export async function supervisorAnswer(
  store: OutputStore,
  options: {
    text: string;
    ownerId: string;
    runId: string;
    model: string;
    idempotencyKey: string;
    inlineBytes?: number | undefined;
  },
): Promise<{ answer: string; answerRef?: OutputRef }> {
  const { text } = options;
  if (Buffer.byteLength(text, 'utf8') <= (options.inlineBytes ?? DEFAULT_INLINE_ANSWER_BYTES)) {
    return { answer: text };
  }
  const answerRef = await store.emit({
    producer: { ownerId: options.ownerId, runId: options.runId, spawnId: 'supervisor', agent: options.model },
    content: { kind: 'text', text },
    idempotencyKey: options.idempotencyKey,
    name: 'supervisor-answer.md',
    contentType: 'text/markdown',
    labels: { kind: 'supervisor-answer' },
  });
  return {
    answer: `${Buffer.from(text).subarray(0, 2048).toString('utf8')}… (full answer: ${answerRef.outId})`,
    answerRef,
  };
}
