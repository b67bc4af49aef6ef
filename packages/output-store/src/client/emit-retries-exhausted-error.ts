import { OutputStoreError } from '../output-store-error.js';

const marker = Symbol.for('@wharf/output-store/emit-retries-exhausted');

/**
 * An EMIT was answered busy (503 or 429) on every attempt its retry policy allowed, or its
 * streamed body could not be sent again. Nothing was stored by the busy answers; the same
 * EMIT (same idempotency key) may be tried again later.
 *
 * @example
 * ```ts
 * if (EmitRetriesExhaustedError.isInstance(error)) console.error(error.attempts, error.lastStatus);
 * ```
 */
export class EmitRetriesExhaustedError extends OutputStoreError {
  /** Requests sent, the first included. */
  readonly attempts: number;
  /** HTTP status of the last answer (503 or 429). */
  readonly lastStatus: number;
  readonly elapsedMs: number;
  constructor(input: {
    attempts: number;
    lastStatus: number;
    elapsedMs: number;
    reason?: string;
    cause?: unknown;
  }) {
    super(
      'UNAVAILABLE',
      `EMIT gave up after ${input.attempts} attempt${input.attempts === 1 ? '' : 's'} in ${input.elapsedMs} ms; ` +
        `last status ${input.lastStatus}${input.reason ? ` (${input.reason})` : ''}`,
      input.cause === undefined ? undefined : { cause: input.cause },
    );
    this.name = 'EmitRetriesExhaustedError';
    this.attempts = input.attempts;
    this.lastStatus = input.lastStatus;
    this.elapsedMs = input.elapsedMs;
    Object.defineProperty(this, marker, { value: true });
  }

  /** True for an EmitRetriesExhaustedError from any realm. */
  static override isInstance(value: unknown): value is EmitRetriesExhaustedError {
    return (
      OutputStoreError.isInstance(value) && (value as unknown as Record<symbol, unknown>)[marker] === true
    );
  }
}
