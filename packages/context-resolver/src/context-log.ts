import type { JsonObject, JsonValue } from '@wharf/common';
import { ContextResolverError } from './context-resolver-error.js';
import { foldWrites, type Resolution } from './fold.js';
import { isJsonObject, toJsonValue } from './json.js';
import { parsePath, parseReference, type Reference } from './path.js';
import { type IndexNode, type IndexScope, PathIndex } from './path-index.js';
import type { ResolveOptions } from './scan-resolve.js';
import { type ContextMessage, contextMessageSchema } from './schemas.js';
import { ownKeyAt, valueAtPathText } from './value-at-path-text.js';
import { checkWrite, messageWrites, pathWrite, valueAt, type Write } from './writes.js';

/** A checked message: its writes and where they go in the index. */
interface Prepared {
  scope: IndexScope;
  node: IndexNode | undefined;
  writes: Write[];
}

/**
 * An append-only context of messages with a path index. Messages are never changed or merged
 * when written; every read rebuilds the value from the messages touching the path
 * (see {@link ContextLog.resolve}). Appended messages are stored as given and the index reads
 * values back from them: treat them as frozen. Appending only checks the message (a bad one
 * throws there, not at the next read); the index catches up on the next resolve, in one batch.
 *
 * @example
 * ```ts
 * const context = new ContextLog([{ type: 'data', data: { user: { name: 'Alex' } } }]);
 * context.resolve('†data.user.name'); // { found: true, value: 'Alex' }
 * ```
 */
export class ContextLog {
  readonly #messages: ContextMessage[] = [];
  readonly #index = new PathIndex((messageIndex, path) => this.#valueAt(messageIndex, path));
  /** How many messages (from the start) the index holds; the rest wait for the next resolve. */
  #indexed = 0;
  /** Dot paths of `_path` already parsed, so a repeated path is checked without parsing it again. */
  readonly #paths = new Map<string, readonly string[]>();

  constructor(messages: Iterable<ContextMessage> = []) {
    for (const message of messages) this.append(message);
  }

  /**
   * Builds a context from untrusted input (a workflow argument, a JSON file), validating every
   * message. Throws `INVALID_MESSAGE` naming the message index and the problem.
   *
   * @example
   * ```ts
   * const context = ContextLog.from(JSON.parse(text) as unknown);
   * ```
   */
  static from(input: unknown): ContextLog {
    const parsed = contextMessageSchema.array().safeParse(input);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const where = issue?.path.length ? `messages.${issue.path.join('.')}` : 'messages';
      throw new ContextResolverError('INVALID_MESSAGE', `${where}: ${issue?.message ?? 'invalid'}`, {
        cause: parsed.error,
      });
    }
    // zod's copy would turn a `__proto__` key into a prototype: keep a JSON-safe copy of the input.
    return new ContextLog(toJsonValue(input, 'messages') as ContextMessage[]);
  }

  /** Number of messages. */
  get length(): number {
    return this.#messages.length;
  }

  /** The messages, oldest first (a read-only view). */
  get messages(): readonly ContextMessage[] {
    return this.#messages;
  }

  /**
   * The messages as plain JSON (what `JSON.stringify` and Temporal's payload converter use), so
   * a context can cross a workflow boundary and come back with {@link ContextLog.from}.
   *
   * @example
   * ```ts
   * const copy = ContextLog.from(JSON.parse(JSON.stringify(context)) as unknown);
   * ```
   */
  toJSON(): ContextMessage[] {
    return [...this.#messages];
  }

  /**
   * Appends a message and indexes its writes; returns its index. A malformed message (a `_path`
   * its data does not hold, a merge of a non-object…) is rejected with `INVALID_MESSAGE` and
   * nothing is appended.
   *
   * @example
   * ```ts
   * context.append({ type: 'state', data: { step: 2 } }); // 1
   * ```
   */
  append(message: ContextMessage): number {
    const messageIndex = this.#messages.length;
    this.#check(message, messageIndex);
    this.#messages.push(message);
    return messageIndex;
  }

  /**
   * Appends several messages: all are checked first, so a malformed one throws
   * `INVALID_MESSAGE` and leaves the context unchanged. Returns their indices.
   *
   * @example
   * ```ts
   * context.appendAll([{ type: 'data', data: { a: 1 } }, { type: 'state', data: { b: 2 } }]); // [1, 2]
   * ```
   */
  appendAll(messages: readonly ContextMessage[]): number[] {
    const start = this.#messages.length;
    for (let offset = 0; offset < messages.length; offset++) {
      this.#check(messages[offset] as ContextMessage, start + offset);
    }
    return messages.map((message) => this.#messages.push(message) - 1);
  }

  /**
   * Throws `INVALID_MESSAGE` when `message` could not be indexed (what `#prepare` would throw),
   * without building its writes: the checks of `messageWrites` and `pathWrite`. A `_path` is
   * first matched against the keys of `data` in place ({@link valueAtPathText}); only what that
   * cannot decide is parsed (once per distinct text) and walked.
   */
  #check(message: ContextMessage, messageIndex: number): void {
    if (typeof message !== 'object' || message === null || typeof message.type !== 'string') {
      throw new ContextResolverError('INVALID_MESSAGE', `message ${messageIndex}: no string type`);
    }
    const data = message.data;
    if (data === undefined) return; // writes nothing (see messageWrites)
    const pathText = message._path;
    if (typeof pathText === 'string') {
      // The common case (an object path, ASCII keys) needs neither the parsed path nor a lookup.
      const value = valueAtPathText(data as JsonValue, pathText);
      if (value !== undefined && isFitFor(message._outputMethod, value)) return;
    }
    try {
      if (typeof pathText === 'string') {
        let path = this.#paths.get(pathText);
        if (path === undefined) {
          path = parsePath(pathText);
          this.#paths.set(pathText, path);
        }
        pathWrite(message, path);
      } else {
        const method = message._outputMethod ?? 'set';
        if (method !== 'set') checkWrite(method, data as JsonValue);
      }
    } catch (error) {
      if (!ContextResolverError.isInstance(error)) throw error;
      throw new ContextResolverError('INVALID_MESSAGE', `message ${messageIndex}: ${error.message}`, {
        cause: error,
      });
    }
  }

  /**
   * Indexes the messages appended since the last resolve (they were checked when appended). The
   * writes found along `data` are staged and their nodes' lists filled in one go at the end
   * ({@link PathIndex.commitStaged}); a message taking the general route commits what is staged
   * before it, so writes keep message order.
   */
  #catchUp(): void {
    const messages = this.#messages;
    const index = this.#index;
    try {
      for (let messageIndex = this.#indexed; messageIndex < messages.length; messageIndex++) {
        const message = messages[messageIndex] as ContextMessage;
        const node = this.#nodeAlongData(message);
        if (node !== undefined) index.stage(node, message._outputMethod ?? 'set', messageIndex);
        else this.#commit(message, this.#prepare(message, messageIndex), messageIndex);
        this.#indexed = messageIndex + 1;
      }
    } finally {
      index.commitStaged();
    }
  }

  /**
   * The trie node the write of a `_path` message goes to, found by walking `data` and the trie
   * together, one own key of `data` per segment ({@link ownKeyAt}): the path text is neither
   * parsed nor hashed, and the trie is looked up by keys the engine already keeps unique.
   * Returns `undefined` when that walk cannot decide; `#prepare` then takes the general route.
   */
  #nodeAlongData(message: ContextMessage): IndexNode | undefined {
    const text = message._path;
    const data = message.data;
    if (typeof text !== 'string' || text.length === 0 || data === undefined) return undefined;
    const end = text.length;
    let node = this.#index.root(message.type, message._instance);
    let value = data as JsonValue;
    let position = 0;
    while (position < end) {
      const key = ownKeyAt(value, text, position);
      if (key === undefined) return undefined;
      value = (value as JsonObject)[key] as JsonValue;
      node = this.#index.child(node, key);
      position += key.length + 1;
    }
    // A path ending in '.' stops right at the end; the general route names what is wrong.
    if (position !== end + 1 || !isFitFor(message._outputMethod, value)) return undefined;
    return node;
  }

  #prepare(message: ContextMessage, messageIndex: number): Prepared {
    if (typeof message !== 'object' || message === null || typeof message.type !== 'string') {
      throw new ContextResolverError('INVALID_MESSAGE', `message ${messageIndex}: no string type`);
    }
    const pathText = typeof message._path === 'string' ? message._path : undefined;
    const scope: IndexScope = { kind: message.type, instance: message._instance, pathText };
    try {
      if (message.data === undefined) return { scope, node: undefined, writes: [] };
      const node = this.#index.knownNode(scope);
      if (node === undefined) return { scope, node, writes: messageWrites(message) };
      return { scope, node, writes: [pathWrite(message, node.path)] };
    } catch (error) {
      if (!ContextResolverError.isInstance(error)) throw error;
      throw new ContextResolverError('INVALID_MESSAGE', `message ${messageIndex}: ${error.message}`, {
        cause: error,
      });
    }
  }

  #commit(_message: ContextMessage, prepared: Prepared, messageIndex: number): void {
    for (const write of prepared.writes) {
      const located = { path: write.path, method: write.method, value: write.value, messageIndex };
      this.#index.add(located, prepared.scope, prepared.node);
    }
  }

  /** The value message `messageIndex` writes at `path` (the index keeps where, not what). */
  #valueAt(messageIndex: number, path: readonly string[]): JsonValue {
    const message = this.#messages[messageIndex] as ContextMessage;
    const value = message.data === undefined ? undefined : valueAt(message.data, path);
    if (value === undefined) {
      // Only a message changed after it was appended gets here (appended messages are frozen).
      throw new ContextResolverError('INVALID_MESSAGE', `message ${messageIndex}: data changed after append`);
    }
    return value;
  }

  /**
   * Resolves a reference at read time: searches newest → oldest for writes at the path, above
   * it or below it; a `set` at or above the path ends the search, `merge`/`push`/`concat` are
   * collected and applied oldest → newest. Returns `found: false` when nothing holds the path
   * (distinct from a stored `null`). Throws `TypeMismatchError` when the writes cannot combine.
   * The returned value is a fresh copy.
   *
   * @example
   * ```ts
   * context.resolve('†data.user'); // { found: true, value: { name: 'Alex', status: 'inactive' } }
   * context.resolve('†state.users.0.name', { instance: 'worker-1' });
   * ```
   */
  resolve(reference: string | Reference, options: ResolveOptions = {}): Resolution {
    const parsed = typeof reference === 'string' ? parseReference(reference) : reference;
    if (this.#indexed < this.#messages.length) this.#catchUp();
    const window = this.#index.window(parsed, options.instance);
    return foldWrites(window.reverse(), parsed);
  }
}

/** Does `value` suit `method` (what `checkWrite` throws for, as a test)? */
function isFitFor(method: string | undefined, value: JsonValue): boolean {
  if (method === 'merge') return isJsonObject(value);
  return method !== 'concat' || Array.isArray(value);
}
