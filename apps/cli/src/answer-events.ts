import { setTimeout as sleep } from 'node:timers/promises';
import type { AnswerEvent, SwarmProgress } from '@wharf/orchestrator';
import { ANSWER_EVENTS_SCHEMA } from '@wharf/orchestrator';
import type { OutputStore } from '@wharf/output-store';
import { LiveText, type LiveTextOptions } from './live-text.js';

/** Options of {@link followAnswers}. */
export interface FollowAnswersOptions {
  /** Ends the following; the answers' last chunks are read for up to 2 s more. */
  signal: AbortSignal;
  /** How often progress is read to find new running steps; default 500 ms. */
  intervalMs?: number;
  liveText?: LiveTextOptions;
}

/**
 * The live answers of a run's agents as `wharf.answers/v1` events (`answer.text`,
 * `answer.restarted`), for `wharf run --follow --json`: reads the run's progress for the streams
 * its running steps name and follows them in the store (`LiveText`), until `signal` fires.
 *
 * @example
 * ```ts
 * await followAnswers(wharf, workflowId, store, (event) => console.log(JSON.stringify(event)), { signal });
 * ```
 */
export async function followAnswers(
  wharf: { progress(workflowId: string): Promise<SwarmProgress> },
  workflowId: string,
  store: OutputStore,
  emit: (event: AnswerEvent) => void,
  options: FollowAnswersOptions,
): Promise<void> {
  const base = { schema: ANSWER_EVENTS_SCHEMA, workflowId } as const;
  const live = new LiveText(
    store,
    {
      text: (label, text, at) => emit({ ...base, type: 'answer.text', label, ...at, text }),
      restarted: (label, attempt, previous, stream) =>
        emit({ ...base, type: 'answer.restarted', label, stream, attempt, previous }),
    },
    options.liveText,
  );
  while (!options.signal.aborted) {
    const progress = await wharf.progress(workflowId).catch(() => undefined);
    if (progress !== undefined) live.update(progress);
    await sleep(options.intervalMs ?? 500, undefined, { signal: options.signal }).catch(() => {});
  }
  await live.settle(2_000);
}
