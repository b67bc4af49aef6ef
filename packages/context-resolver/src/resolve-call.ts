import type { JsonValue } from '@wharf/common';
import { checkCall } from './check-call.js';
import { type Context, resolveReference } from './context.js';
import { ContextResolverError } from './context-resolver-error.js';
import { evaluateExpression } from './evaluate.js';
import { parseExpression } from './expression.js';
import { isJsonObject, toJsonValue } from './json.js';
import { REFERENCE_MARKER, scanReference } from './path.js';
import type { ResolveOptions } from './scan-resolve.js';
import type { Call } from './schemas.js';

/**
 * The missing references of one argument (its dot path inside the call).
 *
 * @example
 * ```ts
 * const entry: MissingArgument = { argument: 'filters.0.city', missing: ['†input.city'] };
 * ```
 */
export interface MissingArgument {
  readonly argument: string;
  readonly missing: readonly string[];
}

/**
 * Outcome of {@link resolveCall}.
 *
 * @example
 * ```ts
 * const outcome: CallResolution = { status: 'not-ready', missing: ['†data.doc'], arguments: [{ argument: 'text', missing: ['†data.doc'] }] };
 * ```
 */
export type CallResolution =
  | { readonly status: 'ready'; readonly call: Call }
  | {
      readonly status: 'not-ready';
      /** Every missing reference, each once. */
      readonly missing: readonly string[];
      readonly arguments: readonly MissingArgument[];
    };

const referenceStart = /[\p{L}_]/u;
const ESCAPED_MARKER = `${REFERENCE_MARKER}${REFERENCE_MARKER}`;

/**
 * Replaces every reference in a call's arguments, however deep (objects and arrays), and
 * returns the resolved call, or the references that are missing.
 *
 * - A string that is entirely an expression (`"†data.user"`, `"†a || †b"`, `"†a && †b"`) is
 *   replaced by the resolved JSON value, whatever its type.
 * - A string with references inside text (`"Hello †data.user.name!"`) gets each reference
 *   replaced by its value (strings as they are, other values as JSON).
 *
 * `††` stands for a literal `†` (`"††data.x"` stays the text `"†data.x"`).
 *
 * `options.kinds` resolves chosen kinds outside the context (see `ResolveOptions.kinds`).
 *
 * `_`-prefixed keys at the top of the call (`_tool`, `_outputPath`, …) are metadata and left as
 * they are. With `_instance`, references resolve inside that instance's data context. A
 * malformed expression throws `InvalidExpressionError`, with the argument named in the message.
 *
 * @example
 * ```ts
 * resolveCall(context, { _tool: 'greet', name: '†data.user.name' });
 * // { status: 'ready', call: { _tool: 'greet', name: 'Alex' } }
 * ```
 */
export function resolveCall(
  context: Context,
  call: Call,
  options: Pick<ResolveOptions, 'kinds'> = {},
): CallResolution {
  checkCall(call);
  const resolver = new ArgumentResolver(context, { instance: call._instance, kinds: options.kinds });
  const resolved: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(call)) {
    if (value === undefined) continue;
    resolved[key] = key.startsWith('_') ? value : resolver.resolve(toJsonValue(value, key), key);
  }
  if (resolver.missingArguments.length > 0) {
    const missing = [...new Set(resolver.missingArguments.flatMap((entry) => entry.missing))];
    return { status: 'not-ready', missing, arguments: resolver.missingArguments };
  }
  return { status: 'ready', call: resolved as Call };
}

class ArgumentResolver {
  readonly missingArguments: MissingArgument[] = [];
  readonly #context: Context;
  readonly #options: ResolveOptions;

  constructor(context: Context, options: ResolveOptions) {
    this.#context = context;
    this.#options = options;
  }

  resolve(value: JsonValue, where: string): JsonValue {
    if (typeof value === 'string') return this.#resolveString(value, where);
    if (Array.isArray(value)) return value.map((item, index) => this.resolve(item, `${where}.${index}`));
    if (isJsonObject(value)) {
      const result: Record<string, JsonValue> = {};
      for (const key of Object.keys(value)) {
        Object.defineProperty(result, key, {
          value: this.resolve(value[key] as JsonValue, `${where}.${key}`),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return result;
    }
    return value;
  }

  #resolveString(text: string, where: string): JsonValue {
    if (!text.includes(REFERENCE_MARKER)) return text;
    const trimmed = text.trim();
    if (trimmed.startsWith(REFERENCE_MARKER) && !trimmed.startsWith(ESCAPED_MARKER)) {
      const evaluation = this.#guard(where, () =>
        evaluateExpression(this.#context, parseExpression(trimmed), this.#options),
      );
      if (evaluation.ready) return evaluation.value;
      this.missingArguments.push({ argument: where, missing: evaluation.missing });
      return text;
    }
    return this.#interpolate(text, where);
  }

  #interpolate(text: string, where: string): string {
    let output = '';
    let position = 0;
    const missing: string[] = [];
    for (;;) {
      const marker = text.indexOf(REFERENCE_MARKER, position);
      if (marker >= 0 && text.startsWith(ESCAPED_MARKER, marker)) {
        output += text.slice(position, marker + 1);
        position = marker + 2;
        continue;
      }
      if (marker < 0 || !referenceStart.test(text[marker + 1] ?? '')) {
        if (marker < 0) break;
        output += text.slice(position, marker + 1);
        position = marker + 1;
        continue;
      }
      output += text.slice(position, marker);
      const scanned = this.#guard(where, () => scanReference(text, marker, true));
      const resolution = resolveReference(this.#context, scanned.reference, this.#options);
      const reference = text.slice(marker, scanned.end);
      if (resolution.found) {
        output += typeof resolution.value === 'string' ? resolution.value : JSON.stringify(resolution.value);
      } else {
        if (!missing.includes(reference)) missing.push(reference);
        output += reference;
      }
      position = scanned.end;
    }
    output += text.slice(position);
    if (missing.length > 0) this.missingArguments.push({ argument: where, missing });
    return output;
  }

  #guard<TValue>(where: string, work: () => TValue): TValue {
    try {
      return work();
    } catch (error) {
      if (ContextResolverError.isInstance(error) && !error.message.startsWith('argument ')) {
        error.message = `argument ${where}: ${error.message}`;
      }
      throw error;
    }
  }
}
