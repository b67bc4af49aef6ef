import type { JsonValue } from '@wharf/common';
import { z } from 'zod';
import { checkCall } from './check-call.js';
import { appendMessages, type Context } from './context.js';
import { ContextResolverError, InvalidExpressionError } from './context-resolver-error.js';
import { isJsonObject, setKey, toJsonValue } from './json.js';
import { parseOutputPath } from './output-plan.js';
import { formatReference, isArrayIndex, type Reference } from './path.js';
import type { Call, ContextMessage, OutputMethod } from './schemas.js';

/**
 * Options of {@link applyOutput}.
 *
 * @example
 * ```ts
 * const options: ApplyOutputOptions = { date: '2025-10-26T12:00:00Z', outcome: 'failure' };
 * ```
 */
export interface ApplyOutputOptions {
  /** ISO timestamp stored as `_date` (the caller's clock: workflow code passes its own). */
  readonly date: string;
  /** `failure` writes `result` (the error) to the right side of `†ok || †failed`. Default `success`. */
  readonly outcome?: 'success' | 'failure';
}

/**
 * Outcome of {@link applyOutput}.
 *
 * @example
 * ```ts
 * const applied: AppliedOutput = applyOutput(context, call, result, { date });
 * if (!applied.written) console.log(applied.reason); // 'no-output-path' for fire-and-forget calls
 * ```
 */
export type AppliedOutput =
  | {
      readonly written: true;
      /** The appended messages, one per destination, and their indices in the context. */
      readonly messages: readonly ContextMessage[];
      readonly indices: readonly number[];
    }
  | {
      readonly written: false;
      /**
       * `no-output-path`: the call has no `_outputPath` (fire-and-forget or ephemeral reasoning).
       * `no-destination`: the outcome has no side in the output path (a failure of `†a`).
       */
      readonly reason: 'no-output-path' | 'no-destination';
    };

const dateSchema = z.iso.datetime({ offset: true });

/**
 * Appends a call's output to the context, one message per destination of its `_outputPath`.
 * Each message is `{ type: kind, data: <value nested at the path>, _call, _date, _outputMethod,
 * _path }` (plus `_instance` for an instanced call, whose outputs only that instance sees).
 * Nothing is merged now: reads combine the messages (see `ContextLog.resolve`).
 *
 * All checks run before anything is appended: a bad date, path, value or method throws and
 * leaves the context unchanged; so does a missing or malformed argument (`INVALID_ARGUMENT`,
 * naming it). A failed call's error (an `Error` becomes `{ name, message }`) is written with
 * the call's method, except that `concat` pushes it.
 *
 * @example
 * ```ts
 * applyOutput(context, { _tool: 'updateUserStatus', _outputPath: '†data.user.status' }, 'inactive', {
 *   date: '2025-10-26T12:00:00Z',
 * });
 * // appends { type: 'data', data: { user: { status: 'inactive' } }, _call: {…}, _date: '…', … }
 * ```
 */
export function applyOutput(
  context: Context,
  call: Call,
  result: unknown,
  options: ApplyOutputOptions,
): AppliedOutput {
  checkArguments(context, options);
  checkCall(call);
  if (!dateSchema.safeParse(options.date).success) {
    throw new ContextResolverError('INVALID_VALUE', `date: "${options.date}" is not an ISO timestamp`);
  }
  if (call._outputPath === undefined) return { written: false, reason: 'no-output-path' };
  const plan = parseOutputPath(call._outputPath);
  const failed = options.outcome === 'failure';
  const destinations = failed ? plan.failure : plan.success;
  if (destinations.length === 0) return { written: false, reason: 'no-destination' };
  const value = toJsonValue(failed ? errorObject(result) : result, 'result');
  let method: OutputMethod = call._outputMethod ?? 'set';
  if (failed && method === 'concat') method = 'push';
  if (method === 'merge' && !isJsonObject(value)) {
    throw new ContextResolverError('INVALID_VALUE', 'result: a merge output must be a JSON object');
  }
  if (method === 'concat' && !Array.isArray(value)) {
    throw new ContextResolverError('INVALID_VALUE', 'result: a concat output must be a JSON array');
  }
  const storedCall = toJsonValue(call, 'call') as Call;
  const messages = destinations.map((destination) => {
    checkDestination(destination);
    const message: ContextMessage = {
      type: destination.kind,
      data: nest(destination.path, value),
      _call: storedCall,
      _date: options.date,
      _outputMethod: method,
      _path: destination.path.join('.'),
    };
    if (call._instance !== undefined) message._instance = call._instance;
    return message;
  });
  const indices = appendMessages(context, messages);
  return { written: true, messages, indices };
}

/** The arguments the types cannot guard for a JavaScript caller: `INVALID_ARGUMENT` naming which. */
function checkArguments(context: unknown, options: unknown): void {
  const isContext =
    Array.isArray(context) ||
    (typeof context === 'object' &&
      context !== null &&
      typeof Reflect.get(context, 'appendAll') === 'function');
  if (!isContext) {
    throw new ContextResolverError(
      'INVALID_ARGUMENT',
      `applyOutput: context (1st argument) must be a ContextLog or a message array, got ${describeValue(context)}`,
    );
  }
  if (typeof options !== 'object' || options === null || Array.isArray(options)) {
    throw new ContextResolverError(
      'INVALID_ARGUMENT',
      `applyOutput: options (4th argument) must be an object with a date, got ${describeValue(options)}`,
    );
  }
  const outcome: unknown = Reflect.get(options, 'outcome');
  if (outcome !== undefined && outcome !== 'success' && outcome !== 'failure') {
    throw new ContextResolverError(
      'INVALID_ARGUMENT',
      `applyOutput: options.outcome must be 'success' or 'failure', got ${typeof outcome === 'string' ? JSON.stringify(outcome) : describeValue(outcome)}`,
    );
  }
}

function describeValue(value: unknown): string {
  if (value === undefined || value === null) return String(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function checkDestination(destination: Reference): void {
  const text = formatReference(destination);
  let position = text.length - destination.path.join('.').length;
  for (const segment of destination.path) {
    if (isArrayIndex(segment) && Number(segment) > 1_000_000) {
      throw new InvalidExpressionError({
        expression: text,
        position,
        expected: 'an index of at most 1000000 (output path index too large)',
        code: 'INVALID_PATH',
      });
    }
    position += segment.length + 1;
  }
}

function nest(path: readonly string[], value: JsonValue): JsonValue {
  let data = value;
  for (let index = path.length - 1; index >= 0; index--) {
    const wrapper = {};
    setKey(wrapper, path[index] as string, data);
    data = wrapper;
  }
  return data;
}

function errorObject(error: unknown): unknown {
  if (
    error instanceof Error ||
    (typeof error === 'object' && error !== null && 'message' in error && 'name' in error)
  ) {
    const source = error as { name: unknown; message: unknown; code?: unknown };
    const object: Record<string, unknown> = { name: String(source.name), message: String(source.message) };
    if (typeof source.code === 'string' || typeof source.code === 'number') object.code = source.code;
    return object;
  }
  return error;
}
