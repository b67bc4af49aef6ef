import { errorGuard, WharfError, type WharfErrorOptions } from '@wharf/common';

const marker = Symbol.for('@wharf/codec/error');

/**
 * Stable machine-readable codes of {@link CodecError}.
 *
 * @example
 * ```ts
 * const code: CodecErrorCode = 'CODEC_UNKNOWN_KEY';
 * ```
 */
export type CodecErrorCode =
  | 'CODEC_UNKNOWN_KEY'
  | 'CODEC_AUTH_FAILED'
  | 'CODEC_INVALID_KEY_RING'
  | 'CODEC_INVALID_PAYLOAD'
  | 'CODEC_UNSAFE_BIND'
  | 'CODEC_INVALID_OPTION'
  | 'CODEC_FORBIDDEN_REFERENCE'
  | 'CODEC_REFERENCE_UNAVAILABLE';

/**
 * Base error of `@wharf/codec`, with a stable {@link CodecError.code}. Its messages name key
 * ids and payload or output ids, never key material or payload contents.
 *
 * Use {@link CodecError.isInstance} rather than `instanceof`: it also recognises errors from
 * another realm (the Temporal workflow sandbox, a worker thread).
 *
 * @example
 * ```ts
 * try {
 *   await codec.decode(payloads);
 * } catch (error) {
 *   if (CodecError.isInstance(error) && error.code === 'CODEC_UNKNOWN_KEY') console.error(error.message);
 * }
 * ```
 */
export class CodecError extends WharfError<CodecErrorCode> {
  constructor(code: CodecErrorCode, message: string, options?: WharfErrorOptions) {
    super(marker, code, message, options);
    this.name = 'CodecError';
  }

  /** True for any CodecError, whichever realm created it. */
  static override readonly isInstance = errorGuard<CodecError>(marker);
}
