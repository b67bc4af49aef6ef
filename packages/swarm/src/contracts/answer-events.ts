// What `wharf run --follow --json` prints of running agents' answers as they are written: a
// stable, versioned schema beside the run's events. Workflow-safe: zod only.
import { z } from 'zod';

/** The version every answer event names in its `schema` field; a change that breaks readers makes a v2. */
export const ANSWER_EVENTS_SCHEMA = 'wharf.answers/v1';

const base = {
  schema: z.literal(ANSWER_EVENTS_SCHEMA),
  /** The swarm run's workflow id. */
  workflowId: z.string(),
  /** Who writes the answer: `task`, `task#3` (a loop instance), `notes.draft` (inside a `swarm:` task's child run). */
  label: z.string(),
  /** The durable output stream the step writes its answer to (`str_…`): `wharf outputs tail` reads it. */
  stream: z.string(),
  /** The step's attempt this text belongs to. */
  attempt: z.number().int().nonnegative(),
};

/**
 * One event of the live answers `wharf run --follow --json` prints between the run's events
 * (`wharf.answers/v1`), read from the model steps' streams in the store. Types:
 * - `answer.text`: new text of an answer: chunk `seq` (from 0) of attempt `attempt` of `stream`.
 *   `(stream, attempt, seq)` is its position: the same chunk always has the same text, so a
 *   reader that reconnects and reads the stream again skips what it has (`tailStream`'s `after`);
 * - `answer.restarted`: the step started again on attempt `attempt` (its worker died, its model
 *   call failed); `previous` says how the earlier attempt ended. Its text follows from its start:
 *   the earlier attempt's text is never part of it.
 *
 * These are not in the run's numbered event stream (`wharf.events/v1`): they come from the
 * store, not the run's history, and each stream numbers its own.
 *
 * @example
 * ```ts
 * const event = answerEventSchema.parse(JSON.parse(line));
 * if (event.type === 'answer.text') process.stdout.write(event.text);
 * ```
 */
export const answerEventSchema = z.discriminatedUnion('type', [
  z.strictObject({
    ...base,
    type: z.literal('answer.text'),
    seq: z.number().int().nonnegative(),
    text: z.string(),
  }),
  z.strictObject({
    ...base,
    type: z.literal('answer.restarted'),
    previous: z.strictObject({
      attempt: z.number().int().nonnegative(),
      state: z.string(),
      reason: z.string().optional(),
    }),
  }),
]);

/** One live answer event: see {@link answerEventSchema}. */
export type AnswerEvent = z.infer<typeof answerEventSchema>;
