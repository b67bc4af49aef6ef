import { OutputStoreError } from '../output-store-error.js';

/**
 * A store or blobs URL (`WHARF_STORE`, `WHARF_BLOBS`) is malformed. `variable` names where it
 * came from, `part` which piece is wrong (`scheme`, `bucket`, `endpoint`, `path`…), `reason`
 * why. The message never repeats the URL itself, which may hold a password.
 *
 * @example
 * ```ts
 * try { parseBlobsUrl('s3://'); } catch (error) {
 *   if (InvalidStoreUrlError.isInstance(error)) console.error(error.part); // 'bucket'
 * }
 * ```
 */
export class InvalidStoreUrlError extends OutputStoreError {
  readonly variable: string;
  readonly part: string;
  readonly reason: string;
  constructor(variable: string, part: string, reason: string) {
    super('INVALID_OPTION', `invalid ${variable}: ${part} ${reason}`);
    this.name = 'InvalidStoreUrlError';
    this.variable = variable;
    this.part = part;
    this.reason = reason;
  }

  /** True for an InvalidStoreUrlError from any realm. */
  static override isInstance(value: unknown): value is InvalidStoreUrlError {
    return OutputStoreError.isInstance(value) && value.name === 'InvalidStoreUrlError';
  }
}

/**
 * A configured backend needs an optional package that is not installed (`pg` for
 * `postgres://`, `@aws-sdk/client-s3` and `@aws-sdk/lib-storage` for `s3://`).
 *
 * @example
 * ```ts
 * if (BackendMissingError.isInstance(error)) console.error(`npm install ${error.packages.join(' ')}`);
 * ```
 */
export class BackendMissingError extends OutputStoreError {
  readonly packages: readonly string[];
  constructor(packages: readonly string[], scheme: string, options?: { cause?: unknown }) {
    super(
      'INVALID_OPTION',
      `install ${packages.join(' and ')} to use ${scheme} ${scheme === 's3://' ? 'blobs' : 'stores'}`,
      options,
    );
    this.name = 'BackendMissingError';
    this.packages = packages;
  }

  /** True for a BackendMissingError from any realm. */
  static override isInstance(value: unknown): value is BackendMissingError {
    return OutputStoreError.isInstance(value) && value.name === 'BackendMissingError';
  }
}
