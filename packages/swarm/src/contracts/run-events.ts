// The events a swarm run's stream gives programs (`WharfClient.events`, `wharf run --follow --json`,
// the events server's Server-Sent Events): a stable, versioned schema. Workflow-safe: zod only.
import { z } from 'zod';

/** The version every event names in its `schema` field; a change that breaks readers makes a v2. */
export const RUN_EVENTS_SCHEMA = 'wharf.events/v1';

const base = {
  schema: z.literal(RUN_EVENTS_SCHEMA),
  /**
   * Position in the run's event stream, from 1, with no gap: event n of a run is the same event
   * for every reader at any time (it is derived from the run's history, the server's). A reader
   * that reconnects with `after: n` gets events n+1, n+2, … and no other.
   */
  seq: z.number().int().positive(),
  /** The swarm run's workflow id. */
  workflowId: z.string(),
  /** The run of its continue-as-new chain whose history holds the event. */
  runId: z.string(),
  /** The history event it was derived from (its id within `runId`'s history). */
  eventId: z.number().int().positive(),
  /** When the server recorded it (ISO 8601). */
  time: z.string(),
};

/** What a task event names of the task: `task`, or a loop instance `task#3` (`instance` 3). */
const taskFields = {
  task: z.string(),
  /** The loop instance, when the task runs as a loop (`each#2` is instance 2). */
  instance: z.number().int().nonnegative().optional(),
  /** `task`, `task#i`, or `supervisor`: the name the run's Web UI and `wharf status` show. */
  label: z.string(),
};

/**
 * Where an agent task's step event was read: its agent workflow's history (`runId`, `eventId`
 * of the parent's are those of the event that closed the agent task).
 */
const agentSource = {
  agent: z.strictObject({ workflowId: z.string(), runId: z.string(), eventId: z.number().int().positive() }),
};

/**
 * One event of a swarm run's stream (`wharf.events/v1`). Types:
 * - `run.started`: the run's first execution started (`summary`: the swarm, its version and tasks);
 * - `run.continued`: the run continued as new (`newRunId`), its state carried over;
 * - `run.ended`: the run ended (`status`; `reason` when it did not complete);
 * - `task.started`: a task instance was dispatched (its activity scheduled, or its agent, swarm
 *   or supervisor child workflow initiated); `kind` says which, `summary` what the Web UI shows;
 * - `task.finished`: it ended `ok` (`outIds`: its outputs, `bytes` produced);
 * - `task.failed`: it ended failed (`reason`);
 * - `task.cancelled`: it was cancelled (its activity or child workflow);
 * - `approval.waiting`: a task's approval gate (`kind: gate`) or an agent's tool call
 *   (`kind: toolCall`, `callId`, `tool`) waits for a person;
 * - `approval.answered`: a gate was answered (`decision`, `comment`, `by`), or a held tool call no
 *   longer waits (answered, or decided by its `on_timeout`: no `decision`);
 * - `agent.step`: a model step of an agent task (`step`, `finishReason`, the `toolCalls` it made by
 *   name, `textBytes`, tokens), and `tool.called`: a tool call it ran (`callId`, `tool`, `bytes`
 *   of its output, `failed`, `truncated`): read from the agent's own workflow history once the
 *   agent task ends (`agent` names where), just before its `task.finished` or `task.failed`, so
 *   that their numbers never change.
 *
 * Readers ignore types they do not know: v1 may gain types; it never changes one.
 *
 * @example
 * ```ts
 * const event = runEventSchema.parse(JSON.parse(line));
 * if (event.type === 'task.failed') console.error(event.label, event.reason);
 * ```
 */
export const runEventSchema = z.discriminatedUnion('type', [
  z.strictObject({ ...base, type: z.literal('run.started'), summary: z.string().optional() }),
  z.strictObject({ ...base, type: z.literal('run.continued'), newRunId: z.string() }),
  z.strictObject({
    ...base,
    type: z.literal('run.ended'),
    status: z.enum(['completed', 'failed', 'cancelled', 'terminated', 'timed-out']),
    reason: z.string().optional(),
  }),
  z.strictObject({
    ...base,
    ...taskFields,
    type: z.literal('task.started'),
    kind: z.enum(['script', 'agent', 'swarm', 'supervisor']),
    summary: z.string(),
  }),
  z.strictObject({
    ...base,
    ...taskFields,
    type: z.literal('task.finished'),
    outIds: z.array(z.string()),
    bytes: z.number().nonnegative().optional(),
  }),
  z.strictObject({ ...base, ...taskFields, type: z.literal('task.failed'), reason: z.string() }),
  z.strictObject({ ...base, ...taskFields, type: z.literal('task.cancelled') }),
  z.strictObject({
    ...base,
    type: z.literal('approval.waiting'),
    task: z.string(),
    kind: z.enum(['gate', 'toolCall']),
    callId: z.string().optional(),
    tool: z.string().optional(),
  }),
  z.strictObject({
    ...base,
    type: z.literal('approval.answered'),
    task: z.string(),
    kind: z.enum(['gate', 'toolCall']),
    callId: z.string().optional(),
    decision: z.enum(['approved', 'rejected']).optional(),
    comment: z.string().optional(),
    by: z.string().optional(),
  }),
  z.strictObject({
    ...base,
    ...taskFields,
    ...agentSource,
    type: z.literal('agent.step'),
    step: z.number().int().nonnegative(),
    finishReason: z.string(),
    toolCalls: z.array(z.string()),
    textBytes: z.number().int().nonnegative(),
    inputTokens: z.number().nonnegative().optional(),
    outputTokens: z.number().nonnegative().optional(),
  }),
  z.strictObject({
    ...base,
    ...taskFields,
    ...agentSource,
    type: z.literal('tool.called'),
    step: z.number().int().nonnegative(),
    callId: z.string(),
    tool: z.string(),
    bytes: z.number().int().nonnegative(),
    failed: z.boolean(),
    truncated: z.boolean(),
  }),
]);

/** One event of a swarm run's stream, as {@link runEventSchema} defines it. */
export type RunEvent = z.output<typeof runEventSchema>;

/** The event types of {@link RunEvent}. */
export type RunEventType = RunEvent['type'];

/** An event before the stream numbers it: everything but `schema` and `seq`. */
export type UnnumberedRunEvent = RunEvent extends infer TEvent
  ? TEvent extends RunEvent
    ? Omit<TEvent, 'schema' | 'seq'>
    : never
  : never;
