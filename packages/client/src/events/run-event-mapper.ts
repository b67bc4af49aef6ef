import type proto from '@temporalio/proto';
import type { UnnumberedRunEvent } from '@wharf/swarm';

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;
type Payload = proto.temporal.api.common.v1.IPayload;

/** Decodes one payload as the client's data converter does (codec included). */
export type DecodePayload = (payload: Payload) => Promise<unknown>;

/** A task instance a history event dispatched, as its summary names it. */
interface Dispatched {
  task: string;
  instance?: number;
  label: string;
}

/** Reads the whole history of a workflow's chain from run `runId` on: what `agent.*` events come from. */
export type ReadChildHistory = (
  workflowId: string,
  runId: string,
) => AsyncIterable<{ runId: string; event: HistoryEvent }>;

/**
 * Derives a swarm run's stream events from its history, one history event at a time, in order,
 * across its continue-as-new chain (one mapper for the whole chain). A pure function of the
 * history read so far: the events of a history prefix never change as more history comes, so
 * numbering them in order gives every reader the same numbers.
 *
 * What it reads: the start event and its summary (`run.started`), the `runSubagent` activities
 * and the agent, swarm and supervisor child workflows the run schedules, whose summaries Wharf
 * writes as `<task>[#<instance>] · <kind> …` (`task.*`), their results (`ok` or `failed`
 * `SubagentResult`s, a child swarm's result) and failures, the memo's `pendingApprovals`
 * (`approval.waiting` of gates), the `approveTask` updates (`approval.answered`), the
 * `toolCallNotice` signals (held tool calls), and the run's close event.
 *
 * @example
 * ```ts
 * const mapper = new RunEventMapper('etl-2026', (payload) => decode(payload));
 * for (const event of history.events) for (const derived of await mapper.map(runId, event)) console.log(derived.type);
 * ```
 */
export class RunEventMapper {
  readonly #workflowId: string;
  readonly #decode: DecodePayload;
  #started = false;
  /** Scheduled activities and initiated children of the current run, by their event id. */
  #dispatched = new Map<string, Dispatched>();
  /** Dispatched agent (and supervisor) children, by their schedule's event id. */
  #agents = new Set<string>();
  /** Dispatched `swarm:` children, by their schedule's event id. */
  #swarms = new Set<string>();
  readonly #readChild: ReadChildHistory | undefined;
  /** Initiated child workflows of the current run: their schedule's event id, by workflow id. */
  #children = new Map<string, string>();
  /** Accepted `approveTask` updates of the current run, by their accepted event id. */
  #answers = new Map<string, { task: string; comment?: string; by?: string }>();
  /** Gates the memo says wait, as last seen (carried across the chain, as the memo is). */
  #waitingGates = new Set<string>();
  /** Held tool calls that wait, `<task>\u0000<callId>`. */
  #heldCalls = new Set<string>();

  /**
   * @param readChild reads an agent task's or a `swarm:` task's own workflow history when the
   *   task ends, for its `agent.step` and `tool.called` events and its inner swarm's events;
   *   without it there are none.
   */
  constructor(workflowId: string, decode: DecodePayload, readChild?: ReadChildHistory) {
    this.#workflowId = workflowId;
    this.#decode = decode;
    this.#readChild = readChild;
  }

  /** The events one history event of run `runId` gives (none for most: workflow tasks, markers, …). */
  async map(runId: string, event: HistoryEvent): Promise<UnnumberedRunEvent[]> {
    const eventId = Number(event.eventId ?? 0);
    const head = { workflowId: this.#workflowId, runId, eventId, time: isoTime(event.eventTime) };
    const out: UnnumberedRunEvent[] = [];
    const started = event.workflowExecutionStartedEventAttributes;
    if (started) {
      // A new run of the chain: what the last one dispatched ended with it.
      this.#dispatched.clear();
      this.#agents.clear();
      this.#swarms.clear();
      this.#children.clear();
      this.#answers.clear();
      await this.#gatesFromMemo(started.memo?.fields, head, out);
      if (!this.#started) {
        this.#started = true;
        const summary = await this.#text(event.userMetadata?.summary);
        out.unshift({ ...head, type: 'run.started', ...(summary === undefined ? {} : { summary }) });
      }
      return out;
    }
    const activity = event.activityTaskScheduledEventAttributes;
    if (activity?.activityType?.name === 'runSubagent') {
      const dispatched = await this.#dispatch(String(eventId), event.userMetadata?.summary, 'script');
      if (dispatched !== undefined)
        out.push({ ...head, ...dispatched.task, type: 'task.started', ...dispatched.more });
      return out;
    }
    const child = event.startChildWorkflowExecutionInitiatedEventAttributes;
    const childType = child?.workflowType?.name;
    if (childType === 'agentTaskWorkflow' || childType === 'swarmWorkflow') {
      const kind = childType === 'swarmWorkflow' ? 'swarm' : 'agent';
      const dispatched = await this.#dispatch(String(eventId), event.userMetadata?.summary, kind);
      if (dispatched !== undefined)
        out.push({ ...head, ...dispatched.task, type: 'task.started', ...dispatched.more });
      if (child?.workflowId) this.#children.set(child.workflowId, String(eventId));
      return out;
    }
    // The swarm cancels a task (`wharf cancel`, a task not needed any more) when it asks its
    // activity or child to stop: the task is cancelled then, as the run's state says, whatever
    // the activity does after (it may even outlive the run, which may continue as new first).
    const cancelled =
      event.activityTaskCancelRequestedEventAttributes?.scheduledEventId ??
      this.#children.get(
        event.requestCancelExternalWorkflowExecutionInitiatedEventAttributes?.workflowExecution?.workflowId ??
          '',
      );
    if (cancelled !== undefined && cancelled !== null) {
      const task = this.#dispatched.get(String(cancelled));
      this.#dispatched.delete(String(cancelled));
      if (task !== undefined) out.push({ ...head, ...task, type: 'task.cancelled' });
      return out;
    }
    await this.#ended(event, head, out);
    await this.#approvals(event, head, out);
    const memo = event.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields;
    if (memo) await this.#gatesFromMemo(memo, head, out);
    const signal = event.workflowExecutionSignaledEventAttributes;
    if (signal?.signalName === 'toolCallNotice') {
      const notice = (await this.#value(signal.input?.payloads?.[0])) as
        | { call?: { task?: unknown; callId?: unknown; tool?: unknown }; open?: unknown }
        | undefined;
      const call = notice?.call;
      if (typeof call?.task === 'string' && typeof call.callId === 'string') {
        const key = `${call.task}\u0000${call.callId}`;
        if (notice?.open === true && !this.#heldCalls.has(key)) {
          this.#heldCalls.add(key);
          out.push({
            ...head,
            type: 'approval.waiting',
            task: call.task,
            kind: 'toolCall',
            callId: call.callId,
            ...(typeof call.tool === 'string' ? { tool: call.tool } : {}),
          });
        } else if (notice?.open === false && this.#heldCalls.delete(key)) {
          out.push({
            ...head,
            type: 'approval.answered',
            task: call.task,
            kind: 'toolCall',
            callId: call.callId,
          });
        }
      }
    }
    await this.#runEnd(event, head, out);
    return out;
  }

  /** Records a dispatched task instance from its summary (`each#2 · script · …`). */
  async #dispatch(
    key: string,
    summaryPayload: Payload | null | undefined,
    scheduled: 'script' | 'agent' | 'swarm',
  ): Promise<
    | { task: Dispatched; more: { kind: 'script' | 'agent' | 'swarm' | 'supervisor'; summary: string } }
    | undefined
  > {
    const summary = await this.#text(summaryPayload);
    if (summary === undefined) return undefined;
    const label = summary.split(' · ')[0] ?? summary;
    const match = /^(.*)#(\d+)$/.exec(label);
    const task: Dispatched =
      match?.[1] === undefined
        ? { task: label, label }
        : { task: match[1], instance: Number(match[2]), label };
    // The supervisor runs as an agent child workflow of its own name.
    const kind = label === 'supervisor' && scheduled === 'agent' ? 'supervisor' : scheduled;
    this.#dispatched.set(key, task);
    if (scheduled === 'agent') this.#agents.add(key);
    if (scheduled === 'swarm') this.#swarms.add(key);
    return { task, more: { kind, summary } };
  }

  /** `task.finished` / `failed` / `cancelled` from an activity's or a child's close event. */
  async #ended(event: HistoryEvent, head: Head, out: UnnumberedRunEvent[]): Promise<void> {
    const closed = closeOf(event);
    if (closed === undefined) return;
    const task = this.#dispatched.get(closed.key);
    if (task === undefined) return;
    this.#dispatched.delete(closed.key);
    const agent = this.#agents.delete(closed.key) ? childExecutionOf(event) : undefined;
    if (agent !== undefined && closed.outcome !== 'cancelled') await this.#agentSteps(agent, task, head, out);
    const swarm = this.#swarms.delete(closed.key) ? childExecutionOf(event) : undefined;
    if (swarm !== undefined && closed.outcome !== 'cancelled') await this.#innerSwarm(swarm, task, out);
    if (closed.outcome === 'cancelled') {
      out.push({ ...head, ...task, type: 'task.cancelled' });
      return;
    }
    if (closed.outcome === 'failed') {
      out.push({ ...head, ...task, type: 'task.failed', reason: closed.reason });
      return;
    }
    const result = (await this.#value(closed.result)) as
      | {
          status?: unknown;
          outputs?: { outId?: unknown }[];
          bytes?: unknown;
          exitCode?: unknown;
          stderrTail?: unknown;
          compact?: unknown;
        }
      | undefined;
    // A script's or an agent's SubagentResult (`ok`), or a child swarm's SwarmResult (`completed`).
    if (result?.status === 'ok' || result?.status === 'completed') {
      const outIds = Array.isArray(result.outputs)
        ? result.outputs.map((output) => output?.outId).filter((id): id is string => typeof id === 'string')
        : [];
      out.push({
        ...head,
        ...task,
        type: 'task.finished',
        outIds,
        ...(typeof result.bytes === 'number' ? { bytes: result.bytes } : {}),
      });
      return;
    }
    out.push({ ...head, ...task, type: 'task.failed', reason: failedReason(result) });
  }

  /**
   * `approval.answered` from a completed `approveTask` update: its accepted request names the
   * task, comment and answerer, its result the decision (a rejected update is not in history).
   */
  async #approvals(event: HistoryEvent, head: Head, out: UnnumberedRunEvent[]): Promise<void> {
    const input = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
    if (input?.name === 'approveTask') {
      const request = (await this.#value(input.args?.payloads?.[0])) as
        | { task?: unknown; comment?: unknown; by?: unknown }
        | undefined;
      if (typeof request?.task === 'string')
        this.#answers.set(String(event.eventId ?? ''), {
          task: request.task,
          ...(typeof request.comment === 'string' ? { comment: request.comment } : {}),
          ...(typeof request.by === 'string' ? { by: request.by } : {}),
        });
      return;
    }
    const completed = event.workflowExecutionUpdateCompletedEventAttributes;
    if (completed === undefined || completed === null) return;
    const key = String(completed.acceptedEventId ?? '');
    const request = this.#answers.get(key);
    if (request === undefined) return;
    this.#answers.delete(key);
    const result = (await this.#value(completed.outcome?.success?.payloads?.[0])) as
      | { decision?: unknown }
      | undefined;
    const decision = result?.decision;
    if (decision !== 'approved' && decision !== 'rejected') return;
    this.#waitingGates.delete(request.task);
    out.push({
      ...head,
      type: 'approval.answered',
      task: request.task,
      kind: 'gate',
      decision,
      ...(request.comment === undefined ? {} : { comment: request.comment }),
      ...(request.by === undefined ? {} : { by: request.by }),
    });
  }

  /** `approval.waiting` for each gate the memo's `pendingApprovals` newly names. */
  async #gatesFromMemo(
    fields: { [key: string]: Payload } | null | undefined,
    head: Head,
    out: UnnumberedRunEvent[],
  ): Promise<void> {
    const payload = fields?.pendingApprovals;
    if (payload === undefined || payload === null) return;
    const names = await this.#value(payload);
    if (!Array.isArray(names)) return;
    const now = new Set(names.filter((name): name is string => typeof name === 'string'));
    for (const task of now)
      if (!this.#waitingGates.has(task)) out.push({ ...head, type: 'approval.waiting', task, kind: 'gate' });
    this.#waitingGates = now;
  }

  /** `run.continued` or `run.ended` from the run's close event. */
  async #runEnd(event: HistoryEvent, head: Head, out: UnnumberedRunEvent[]): Promise<void> {
    const continued = event.workflowExecutionContinuedAsNewEventAttributes;
    if (continued) {
      out.push({ ...head, type: 'run.continued', newRunId: continued.newExecutionRunId ?? '' });
      return;
    }
    const completed = event.workflowExecutionCompletedEventAttributes;
    if (completed) {
      const result = (await this.#value(completed.result?.payloads?.[0])) as { status?: unknown } | undefined;
      out.push({ ...head, type: 'run.ended', status: result?.status === 'failed' ? 'failed' : 'completed' });
      return;
    }
    const failed = event.workflowExecutionFailedEventAttributes;
    if (failed) {
      out.push({ ...head, type: 'run.ended', status: 'failed', reason: failed.failure?.message ?? 'failed' });
      return;
    }
    if (event.workflowExecutionCanceledEventAttributes)
      out.push({ ...head, type: 'run.ended', status: 'cancelled' });
    const terminated = event.workflowExecutionTerminatedEventAttributes;
    if (terminated)
      out.push({
        ...head,
        type: 'run.ended',
        status: 'terminated',
        ...(terminated.reason ? { reason: terminated.reason } : {}),
      });
    if (event.workflowExecutionTimedOutEventAttributes)
      out.push({ ...head, type: 'run.ended', status: 'timed-out' });
  }

  /**
   * `agent.step` and `tool.called` from an ended agent task's own history (every run of its
   * chain): its `agentModelStep` and `agentToolCall` activities that completed, in order.
   */
  async #agentSteps(
    agent: { workflowId: string; runId: string },
    task: Dispatched,
    head: Head,
    out: UnnumberedRunEvent[],
  ): Promise<void> {
    const scheduled = new Map<string, { name: string; input: Record<string, unknown> }>();
    const events = await this.#fromChild(agent, async (runId, event) => {
      const eventId = Number(event.eventId ?? 0);
      const activity = event.activityTaskScheduledEventAttributes;
      const name = activity?.activityType?.name;
      if (name === 'agentModelStep' || name === 'agentToolCall') {
        const input = (await this.#value(activity?.input?.payloads?.[0])) as
          | Record<string, unknown>
          | undefined;
        scheduled.set(`${runId}/${eventId}`, { name, input: input ?? {} });
        return [];
      }
      const completed = event.activityTaskCompletedEventAttributes;
      if (!completed) return [];
      const step = scheduled.get(`${runId}/${String(completed.scheduledEventId ?? '')}`);
      if (step === undefined) return [];
      const result = ((await this.#value(completed.result?.payloads?.[0])) ?? {}) as Record<string, unknown>;
      const from = { ...head, ...task, agent: { workflowId: agent.workflowId, runId, eventId } };
      const number = (value: unknown) => (typeof value === 'number' ? value : 0);
      if (step.name === 'agentModelStep') {
        const usage = (result.usage ?? {}) as Record<string, unknown>;
        return [
          {
            ...from,
            type: 'agent.step',
            step: number(step.input.step),
            finishReason: typeof result.finishReason === 'string' ? result.finishReason : 'unknown',
            toolCalls: Array.isArray(result.toolCalls)
              ? result.toolCalls.map((call) => String((call as { toolName?: unknown })?.toolName ?? '?'))
              : [],
            textBytes: number(result.textBytes),
            ...(typeof usage.inputTokens === 'number' ? { inputTokens: usage.inputTokens } : {}),
            ...(typeof usage.outputTokens === 'number' ? { outputTokens: usage.outputTokens } : {}),
          },
        ];
      }
      return [
        {
          ...from,
          type: 'tool.called',
          step: number(step.input.step),
          callId: String(step.input.toolCallId ?? ''),
          tool: typeof result.toolName === 'string' ? result.toolName : '?',
          bytes: number(result.bytes),
          failed: result.failed === true,
          truncated: result.truncated === true,
        },
      ];
    });
    out.push(...events);
  }

  /**
   * An ended `swarm:` task's own stream, from its child run's history (every run of its chain),
   * its tasks named as `wharf approve` names them (`notes.draft`, `notes.publish`): its task,
   * approval and agent events, each keeping the child's workflow, run and history event; not
   * its `run.*` events (the `swarm:` task's own start and end stand for them).
   */
  async #innerSwarm(
    swarm: { workflowId: string; runId: string },
    task: Dispatched,
    out: UnnumberedRunEvent[],
  ): Promise<void> {
    const inner = new RunEventMapper(swarm.workflowId, this.#decode, this.#readChild);
    const events = await this.#fromChild(swarm, async (runId, event) =>
      (await inner.map(runId, event))
        .filter((derived) => !derived.type.startsWith('run.'))
        .map((derived) => renamed(derived, task)),
    );
    out.push(...events);
  }

  /**
   * The events `derive` makes of every event of an ended child's history (every run of its
   * chain), all of them or none: a history the server no longer keeps (retention) gives none,
   * and the task's own events still come; any other failure fails the read, which the reader
   * resumes, so the events' numbers never depend on a failure. None without `readChild`.
   */
  async #fromChild(
    child: { workflowId: string; runId: string },
    derive: (runId: string, event: HistoryEvent) => Promise<UnnumberedRunEvent[]>,
  ): Promise<UnnumberedRunEvent[]> {
    if (this.#readChild === undefined) return [];
    const events: UnnumberedRunEvent[] = [];
    try {
      for await (const { runId, event } of this.#readChild(child.workflowId, child.runId))
        events.push(...(await derive(runId, event)));
    } catch (error) {
      if ((error as { code?: unknown }).code !== GRPC_NOT_FOUND) throw error;
      return [];
    }
    return events;
  }

  async #text(payload: Payload | null | undefined): Promise<string | undefined> {
    const value = await this.#value(payload);
    return typeof value === 'string' ? value : undefined;
  }

  async #value(payload: Payload | null | undefined): Promise<unknown> {
    if (payload === undefined || payload === null) return undefined;
    try {
      return await this.#decode(payload);
    } catch {
      return undefined;
    }
  }
}

/** gRPC's NOT_FOUND: a workflow history the server no longer has. */
const GRPC_NOT_FOUND = 5;

type Head = { workflowId: string; runId: string; eventId: number; time: string };

/** A history event's time as ISO 8601 (a protobuf Timestamp, or its JSON form). */
function isoTime(time: proto.google.protobuf.ITimestamp | null | undefined): string {
  if (time === undefined || time === null) return new Date(0).toISOString();
  const seconds = Number(time.seconds ?? 0);
  const nanos = Number(time.nanos ?? 0);
  return new Date(seconds * 1000 + Math.floor(nanos / 1e6)).toISOString();
}

/** An inner swarm's event named from its parent: `draft` of task `notes` is `notes.draft`. */
function renamed(event: UnnumberedRunEvent, parent: Dispatched): UnnumberedRunEvent {
  if (!('task' in event)) return event;
  return {
    ...event,
    task: `${parent.task}.${event.task}`,
    ...('label' in event ? { label: `${parent.label}.${event.label}` } : {}),
  } as UnnumberedRunEvent;
}

/** The agent workflow a child close event names. */
function childExecutionOf(event: HistoryEvent): { workflowId: string; runId: string } | undefined {
  const execution = (
    event.childWorkflowExecutionCompletedEventAttributes ??
    event.childWorkflowExecutionFailedEventAttributes ??
    event.childWorkflowExecutionTimedOutEventAttributes ??
    event.childWorkflowExecutionTerminatedEventAttributes
  )?.workflowExecution;
  return execution?.workflowId && execution.runId
    ? { workflowId: execution.workflowId, runId: execution.runId }
    : undefined;
}

/** The close of an activity or a child workflow: which schedule it closes, and how. */
function closeOf(
  event: HistoryEvent,
):
  | { key: string; outcome: 'completed'; result: Payload | null | undefined }
  | { key: string; outcome: 'failed'; reason: string }
  | { key: string; outcome: 'cancelled' }
  | undefined {
  const key = (id: unknown) => String(id ?? '');
  const a = event.activityTaskCompletedEventAttributes;
  if (a) return { key: key(a.scheduledEventId), outcome: 'completed', result: a.result?.payloads?.[0] };
  const af = event.activityTaskFailedEventAttributes;
  if (af)
    return { key: key(af.scheduledEventId), outcome: 'failed', reason: af.failure?.message ?? 'failed' };
  const at = event.activityTaskTimedOutEventAttributes;
  if (at)
    return {
      key: key(at.scheduledEventId),
      outcome: 'failed',
      reason: `timed out${at.failure?.message ? `: ${at.failure.message}` : ''}`,
    };
  const ac = event.activityTaskCanceledEventAttributes;
  if (ac) return { key: key(ac.scheduledEventId), outcome: 'cancelled' };
  const c = event.childWorkflowExecutionCompletedEventAttributes;
  if (c) return { key: key(c.initiatedEventId), outcome: 'completed', result: c.result?.payloads?.[0] };
  const cf = event.childWorkflowExecutionFailedEventAttributes;
  if (cf)
    return {
      key: key(cf.initiatedEventId),
      outcome: 'failed',
      reason: cf.failure?.cause?.message ?? cf.failure?.message ?? 'failed',
    };
  const ct = event.childWorkflowExecutionTimedOutEventAttributes;
  if (ct) return { key: key(ct.initiatedEventId), outcome: 'failed', reason: 'timed out' };
  const cterm = event.childWorkflowExecutionTerminatedEventAttributes;
  if (cterm) return { key: key(cterm.initiatedEventId), outcome: 'failed', reason: 'terminated' };
  const cc = event.childWorkflowExecutionCanceledEventAttributes;
  if (cc) return { key: key(cc.initiatedEventId), outcome: 'cancelled' };
  const sf = event.startChildWorkflowExecutionFailedEventAttributes;
  if (sf)
    return { key: key(sf.initiatedEventId), outcome: 'failed', reason: 'the child workflow did not start' };
  return undefined;
}

/** Why a task whose result says `failed` failed: its exit code and last stderr line, or its compact text's first line. */
function failedReason(
  result: { exitCode?: unknown; stderrTail?: unknown; compact?: unknown } | undefined,
): string {
  const parts: string[] = [];
  if (typeof result?.exitCode === 'number') parts.push(`exit ${result.exitCode}`);
  if (typeof result?.stderrTail === 'string') {
    const last = result.stderrTail.trim().split('\n').at(-1);
    if (last) parts.push(last.slice(0, 300));
  }
  if (parts.length === 0 && typeof result?.compact === 'string')
    parts.push((result.compact.split('\n')[0] ?? '').slice(0, 300));
  return parts.join(' · ') || 'failed';
}
