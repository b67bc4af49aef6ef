const marker = Symbol.for('@wharf/channels/error');

/** Stable machine-readable codes of {@link ChannelError}. */
export type ChannelErrorCode = 'UNKNOWN_CHANNEL' | 'INVALID_UPDATE';

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
export class ChannelError extends Error {
  readonly code: ChannelErrorCode;
  constructor(code: ChannelErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ChannelError';
    this.code = code;
    Object.defineProperty(this, marker, { value: true });
  }

  /** True for any ChannelError, whichever realm created it. */
  static isInstance(value: unknown): value is ChannelError {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true;
  }
}
