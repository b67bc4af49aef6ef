import { codeGuard, errorGuard, WharfError, type WharfErrorOptions } from '@wharf/common';

const marker = Symbol.for('@wharf/channels/error');

/** Stable machine-readable codes of {@link ChannelError}. */
export type ChannelErrorCode =
  | 'UNKNOWN_CHANNEL'
  | 'INVALID_UPDATE'
  | 'INVALID_CONCURRENT_UPDATE'
  | 'NOT_JSON'
  | 'INVALID_SNAPSHOT'
  | 'UNSUPPORTED_SNAPSHOT_VERSION'
  | 'STEP_OUT_OF_ORDER'
  | 'MERGE_FAILED'
  | 'INVALID_CHANNEL_OPTIONS';

/**
 * Base error of `@wharf/channels`. Every error the package throws is one of these,
 * with a stable {@link ChannelError.code}.
 *
 * Use {@link ChannelError.isInstance} rather than `instanceof`: it also recognises errors
 * created in another realm (the Temporal workflow sandbox, a worker thread).
 *
 * @example
 * ```ts
 * try {
 *   run();
 * } catch (error) {
 *   if (ChannelError.isInstance(error) && error.code === 'UNKNOWN_CHANNEL') {
 *     console.error(error.message);
 *   }
 * }
 * ```
 */
export class ChannelError extends WharfError<ChannelErrorCode> {
  constructor(code: ChannelErrorCode, message: string, options?: WharfErrorOptions) {
    super(marker, code, message, options);
    this.name = 'ChannelError';
  }

  /** True for any ChannelError, whichever realm created it. */
  static override readonly isInstance = errorGuard<ChannelError>(marker);
}

/**
 * A write, read or snapshot named a channel the {@link ChannelSet} does not have.
 *
 * @example
 * ```ts
 * if (UnknownChannelError.isInstance(error)) console.error(`no channel ${error.channel}`);
 * ```
 */
export class UnknownChannelError extends ChannelError {
  /** The unknown name. */
  readonly channel: string;
  constructor(channel: string, known: readonly string[], context?: string) {
    const where = context === undefined ? '' : ` (${context})`;
    super('UNKNOWN_CHANNEL', `Unknown channel "${channel}"${where}; known channels: ${listNames(known)}.`);
    this.name = 'UnknownChannelError';
    this.channel = channel;
  }

  /** True for an {@link UnknownChannelError} from any realm. */
  static override readonly isInstance = codeGuard<UnknownChannelError>(ChannelError, 'UNKNOWN_CHANNEL');
}

/**
 * Two writes reached an overwrite channel (`LastValue`, `Ephemeral`, `Untracked`) in one
 * step: there is no deterministic winner. The error names the channel, the step and both writers.
 *
 * @example
 * ```ts
 * if (InvalidConcurrentUpdateError.isInstance(error)) {
 *   console.error(error.channel, error.step, error.writers);
 * }
 * ```
 */
export class InvalidConcurrentUpdateError extends ChannelError {
  readonly channel: string;
  readonly step: number;
  /** The labels of the earlier and the later writer. */
  readonly writers: readonly [string, string];
  constructor(options: { channel: string; kind: string; step: number; writers: readonly [string, string] }) {
    const [first, second] = options.writers;
    super(
      'INVALID_CONCURRENT_UPDATE',
      `Channel "${options.channel}" (${options.kind}) was written twice in step ${options.step}: ` +
        `first by ${first}, then by ${second}. An overwrite channel keeps one value per step; ` +
        'use an aggregate channel (Topic, BinaryAggregate, Delta, Messages) to combine concurrent writes.',
    );
    this.name = 'InvalidConcurrentUpdateError';
    this.channel = options.channel;
    this.step = options.step;
    this.writers = options.writers;
  }

  /** True for an {@link InvalidConcurrentUpdateError} from any realm. */
  static override readonly isInstance = codeGuard<InvalidConcurrentUpdateError>(
    ChannelError,
    'INVALID_CONCURRENT_UPDATE',
  );
}

/**
 * A write the channel cannot take: a non-number for `Delta`, a message without `id`, an
 * unexpected barrier name, and so on. {@link InvalidUpdateError.channel} names the channel.
 *
 * @example
 * ```ts
 * if (InvalidUpdateError.isInstance(error)) console.error(error.channel, error.message);
 * ```
 */
export class InvalidUpdateError extends ChannelError {
  readonly channel: string;
  constructor(channel: string, reason: string, options?: { cause?: unknown }) {
    super('INVALID_UPDATE', `Invalid write to channel "${channel}": ${reason}`, options);
    this.name = 'InvalidUpdateError';
    this.channel = channel;
  }

  /** True for an {@link InvalidUpdateError} from any realm. */
  static override readonly isInstance = codeGuard<InvalidUpdateError>(ChannelError, 'INVALID_UPDATE');
}

/**
 * A value is not plain JSON (a function, `undefined`, `NaN`, a class instance, a cycle…).
 * {@link NotJsonError.path} points at the offending part, e.g. `plan.steps[2].at`.
 *
 * @example
 * ```ts
 * if (NotJsonError.isInstance(error)) console.error(`not JSON at ${error.path}`);
 * ```
 */
export class NotJsonError extends ChannelError {
  readonly path: string;
  constructor(path: string, reason: string) {
    super('NOT_JSON', `${path} is not plain JSON: ${reason}.`);
    this.name = 'NotJsonError';
    this.path = path;
  }

  /** True for a {@link NotJsonError} from any realm. */
  static override readonly isInstance = codeGuard<NotJsonError>(ChannelError, 'NOT_JSON');
}

/**
 * A snapshot cannot be restored: malformed (`INVALID_SNAPSHOT`) or written in a format
 * version this release does not read (`UNSUPPORTED_SNAPSHOT_VERSION`).
 *
 * @example
 * ```ts
 * if (SnapshotError.isInstance(error)) console.error(error.code, error.message);
 * ```
 */
export class SnapshotError extends ChannelError {
  constructor(code: 'INVALID_SNAPSHOT' | 'UNSUPPORTED_SNAPSHOT_VERSION', message: string) {
    super(code, message);
    this.name = 'SnapshotError';
  }

  /** True for a {@link SnapshotError} from any realm. */
  static override readonly isInstance = codeGuard<SnapshotError>(
    ChannelError,
    'INVALID_SNAPSHOT',
    'UNSUPPORTED_SNAPSHOT_VERSION',
  );
}

function listNames(names: readonly string[]): string {
  if (names.length === 0) return '(none)';
  const shown = names.slice(0, 20).map((name) => `"${name}"`);
  return names.length > 20 ? `${shown.join(', ')}, … (${names.length} in all)` : shown.join(', ');
}
