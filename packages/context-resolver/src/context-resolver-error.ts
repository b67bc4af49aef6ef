import { codeGuard, errorGuard, WharfError, type WharfErrorOptions } from '@wharf/common';

const marker = Symbol.for('@wharf/context-resolver/error');

/**
 * Stable machine-readable codes of {@link ContextResolverError}.
 *
 * @example
 * ```ts
 * const code: ContextResolverErrorCode = 'TYPE_MISMATCH';
 * ```
 */
export type ContextResolverErrorCode =
  | 'INVALID_PATH'
  | 'INVALID_EXPRESSION'
  | 'TYPE_MISMATCH'
  | 'OUTPUT_PATH_NOT_ALLOWED'
  | 'INVALID_MESSAGE'
  | 'INVALID_CALL'
  | 'INVALID_VALUE'
  | 'INVALID_SCHEMA'
  | 'INVALID_ARGUMENT';

/**
 * Base error of `@wharf/context-resolver`. Every error the package throws is one of these,
 * with a stable {@link ContextResolverError.code}.
 *
 * Use {@link ContextResolverError.isInstance} rather than `instanceof`: it also recognises errors
 * created in another realm (the Temporal workflow sandbox, a worker thread).
 *
 * @example
 * ```ts
 * try {
 *   run();
 * } catch (error) {
 *   if (ContextResolverError.isInstance(error) && error.code === 'INVALID_PATH') {
 *     console.error(error.message);
 *   }
 * }
 * ```
 */
export class ContextResolverError extends WharfError<ContextResolverErrorCode> {
  constructor(code: ContextResolverErrorCode, message: string, options?: WharfErrorOptions) {
    super(marker, code, message, options);
    this.name = 'ContextResolverError';
  }

  /** True for any ContextResolverError, whichever realm created it. */
  static override readonly isInstance = errorGuard<ContextResolverError>(marker);
}

/**
 * A write could not be combined with the value already at its path: `push`/`concat` onto a
 * value that is not an array, or `merge` into a value that is not an object. Names the path and
 * the indices of both messages involved.
 *
 * @example
 * ```ts
 * if (ContextResolverError.isInstance(error) && error instanceof TypeMismatchError) {
 *   console.error(error.path, error.messageIndex, error.conflictingMessageIndex);
 * }
 * ```
 */
export class TypeMismatchError extends ContextResolverError {
  /** The reference of the value the write targets, e.g. `†data.user.tags`. */
  readonly path: string;
  /** Index (in the context) of the message whose write failed. */
  readonly messageIndex: number;
  /** Index of the older message that stored the incompatible value. */
  readonly conflictingMessageIndex: number;
  constructor(options: {
    path: string;
    messageIndex: number;
    conflictingMessageIndex: number;
    reason: string;
  }) {
    super(
      'TYPE_MISMATCH',
      `${options.path}: message ${options.messageIndex} ${options.reason} stored by message ${options.conflictingMessageIndex}`,
    );
    this.name = 'TypeMismatchError';
    this.path = options.path;
    this.messageIndex = options.messageIndex;
    this.conflictingMessageIndex = options.conflictingMessageIndex;
  }

  /** True for a TypeMismatchError from any realm (by code; not for other resolver errors). */
  static override readonly isInstance = codeGuard<TypeMismatchError>(ContextResolverError, 'TYPE_MISMATCH');
}

/**
 * A reference, path or expression could not be parsed. Carries the text, the zero-based
 * character position of the problem and a description of the token that was expected there.
 *
 * @example
 * ```ts
 * try {
 *   parseExpression('†data.a ||');
 * } catch (error) {
 *   if (error instanceof InvalidExpressionError) console.error(error.position, error.expected);
 * }
 * ```
 */
export class InvalidExpressionError extends ContextResolverError {
  readonly expression: string;
  readonly position: number;
  readonly expected: string;
  constructor(options: { expression: string; position: number; expected: string; code?: 'INVALID_PATH' }) {
    const found =
      options.position >= options.expression.length
        ? 'end of input'
        : `'${options.expression.slice(options.position, options.position + 1)}'`;
    super(
      options.code ?? 'INVALID_EXPRESSION',
      `${JSON.stringify(options.expression)} at position ${options.position}: expected ${options.expected}, found ${found}`,
    );
    this.name = 'InvalidExpressionError';
    this.expression = options.expression;
    this.position = options.position;
    this.expected = options.expected;
  }

  /** True for a InvalidExpressionError from any realm (by code; not for other resolver errors). */
  static override readonly isInstance = codeGuard<InvalidExpressionError>(
    ContextResolverError,
    'INVALID_EXPRESSION',
    'INVALID_PATH',
  );
}
