// The swarm's context: task inputs resolve from it, task outputs are appended to it.
// Deterministic (runs in the workflow sandbox); the caller passes every timestamp.
import {
  applyOutput,
  type Call,
  ContextLog,
  type ContextMessage,
  formatReference,
  parseOutputPath,
  type Reference,
  type ResolveOptions,
  resolveCall,
} from '@wharf/context-resolver';
import type { SubagentResult } from '../contracts/agent-contracts.js';
import type { StoredListValue } from '../contracts/stored-list.js';
import type { TaskDefinition } from '../contracts/swarm-schema.js';

/** The value a task's output path receives: the ref and a compact view, never the body. */
export interface TaskOutputValue {
  outId: string | null;
  outIds: string[];
  status: 'ok' | 'failed';
  bytes: number;
  exitCode: number | null;
  preview: string;
}

/** Outcome of {@link SwarmContext.resolveInputs}. */
export type InputResolution =
  | { ready: true; values: Record<string, unknown> }
  | { ready: false; missing: string[]; arguments: { argument: string; missing: readonly string[] }[] };

/** What {@link SwarmContext.recordOutput} writes. */
export interface RecordedOutput {
  task: string;
  /** Loop instance; `undefined` for a task without a loop. */
  instance: number | undefined;
  output: TaskDefinition['output'];
  result: SubagentResult;
  /** ISO timestamp from the workflow clock. */
  date: string;
  /**
   * Destinations of this kind are not written to the context (the swarm's channels take them,
   * `†channels.<name>`); the others are written as usual.
   */
  skipKind?: string;
}

/**
 * Wraps a `ContextLog` with the swarm's conventions:
 * - the start input is one `input` message (`†input.<key>`), the `addInput` signal appends more;
 * - a task's `inputs` are resolved as a call whose arguments are the input expressions;
 *   loop instance `i` resolves with `_instance: "<task>#<i>"`, so it sees the shared context
 *   plus its own instance data;
 * - a task's `output` path receives a {@link TaskOutputValue} (ref, size, status, preview);
 *   loop instances write to the shared context with `push` (unless the task names another
 *   method), in instance order, so later tasks see one array of instance results;
 * - a failed task writes its error to the right side of `†ok || †failed`, if there is one: the
 *   same {@link TaskOutputValue} (status `failed`) plus `message` (the end of its stderr).
 */
export class SwarmContext {
  readonly #log: ContextLog;

  constructor(messages: readonly unknown[] | undefined, input: Record<string, unknown>) {
    if (messages !== undefined) {
      this.#log = ContextLog.from(messages);
    } else {
      this.#log = new ContextLog();
      this.#log.append({ type: 'input', data: toJson(input) });
    }
  }

  /** True once `†input.<key>` holds a value (from the start input or an `addInput`). */
  hasInput(key: string): boolean {
    return this.#log.messages.some(
      (message) =>
        message.type === 'input' &&
        typeof message.data === 'object' &&
        message.data !== null &&
        !Array.isArray(message.data) &&
        Object.hasOwn(message.data, key),
    );
  }

  /** Adds `†input.<key>` (from a signal). */
  addInput(key: string, value: unknown, date: string): void {
    this.#log.append({ type: 'input', data: { [key]: toJson(value) }, _date: date } as ContextMessage);
  }

  /** Resolves a task's input expressions, or reports which paths are still missing. */
  resolveInputs(
    task: string,
    inputs: Record<string, string>,
    instance: number | undefined,
    kinds?: ResolveOptions['kinds'],
  ): InputResolution {
    const call: Call = { _tool: task, ...inputs };
    if (instance !== undefined) call._instance = `${task}#${instance}`;
    const resolution = resolveCall(this.#log, call, kinds === undefined ? {} : { kinds });
    if (resolution.status === 'not-ready')
      return { ready: false, missing: [...resolution.missing], arguments: [...resolution.arguments] };
    const values: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(resolution.call)) if (!key.startsWith('_')) values[key] = value;
    return { ready: true, values };
  }

  /**
   * Resolves one `†` expression (`†a`, `†a || †b`, `†a && †b`) against the shared context, as a
   * task sees it before any of its loop instances runs: a `when:` reference, a map loop's `over`.
   */
  evaluate(task: string, expression: string): InputResolution {
    const resolution = this.resolveInputs(task, { value: expression }, undefined);
    return resolution.ready ? { ready: true, values: resolution.values } : resolution;
  }

  /** Appends a finished task's output value to its output path (no-op without one). */
  recordOutput(recorded: RecordedOutput): void {
    const { output, result } = recorded;
    if (output === undefined) return;
    const path = typeof output === 'string' ? output : output.path;
    const declared = typeof output === 'string' ? undefined : output.method;
    const method = declared ?? (recorded.instance === undefined ? 'set' : 'push');
    const value = taskOutputValue(result);
    if (recorded.skipKind !== undefined) {
      const plan = parseOutputPath(path);
      const kept = (references: readonly Reference[]) =>
        references.filter((reference) => reference.kind !== recorded.skipKind);
      const success = kept(plan.success);
      const failure = kept(plan.failure);
      if (success.length !== plan.success.length || failure.length !== plan.failure.length) {
        // Only one side is ever written: write it as a plain fan-out path of its remaining destinations.
        const side = result.status === 'ok' ? success : failure;
        if (side.length === 0) return;
        const written =
          result.status === 'ok' ? value : { ...value, message: result.stderrTail ?? 'task failed' };
        applyOutput(
          this.#log,
          {
            _tool: recorded.task,
            _outputPath: side.map(formatReference).join(' && '),
            _outputMethod: method,
          },
          written,
          { date: recorded.date },
        );
        return;
      }
    }
    const call: Call = { _tool: recorded.task, _outputPath: path, _outputMethod: method };
    if (result.status === 'ok') {
      applyOutput(this.#log, call, value, { date: recorded.date });
    } else {
      // The whole value plus `message`, so `†failed.outId` resolves like `†ok.outId` (applyOutput
      // would keep only `name` and `message` of an object with a `name`).
      const message = result.stderrTail ?? 'task failed';
      applyOutput(this.#log, call, { ...value, message }, { date: recorded.date, outcome: 'failure' });
    }
  }

  /**
   * Writes a loop's stored list to its output path: on the left side of a `||` for its
   * successes, on the right for its failures, with `set`, skipping destinations of `skipKind`
   * (the swarm's channels: its instances wrote those one by one).
   */
  recordStoredList(recorded: {
    task: string;
    output: NonNullable<TaskDefinition['output']>;
    value: StoredListValue;
    date: string;
    skipKind: string;
  }): void {
    const { output, value } = recorded;
    const plan = parseOutputPath(typeof output === 'string' ? output : output.path);
    const side = (value.status === 'ok' ? plan.success : plan.failure).filter(
      (reference) => reference.kind !== recorded.skipKind,
    );
    if (side.length === 0) return;
    applyOutput(
      this.#log,
      { _tool: recorded.task, _outputPath: side.map(formatReference).join(' && '), _outputMethod: 'set' },
      { ...value },
      { date: recorded.date },
    );
  }

  /** The messages, for continue-as-new. */
  messages(): ContextMessage[] {
    return this.#log.messages.map((message) => message);
  }
}

/**
 * The value a task's output path (and a channel it writes) receives for one finished subagent.
 *
 * @example
 * ```ts
 * taskOutputValue(result); // { outId: 'out_…', outIds: ['out_…'], status: 'ok', bytes: 12, exitCode: 0, preview: '…' }
 * ```
 */
export function taskOutputValue(result: SubagentResult): TaskOutputValue {
  const outIds = result.outputs.map((ref) => ref.outId);
  return {
    outId: outIds[0] ?? null,
    outIds,
    status: result.status,
    bytes: result.bytes,
    exitCode: result.exitCode ?? null,
    preview: result.preview ?? '',
  };
}

function toJson(value: unknown): ContextMessage['data'] {
  return JSON.parse(JSON.stringify(value ?? null)) as ContextMessage['data'];
}
