import type { ConnectionProblem } from '../errors.js';

interface S3ErrorShape {
  readonly name?: unknown;
  readonly message?: unknown;
  readonly Code?: unknown;
  readonly code?: unknown;
  readonly $metadata?: { readonly httpStatusCode?: unknown };
}

function shape(error: unknown): S3ErrorShape {
  return typeof error === 'object' && error !== null ? (error as S3ErrorShape) : {};
}

/**
 * Whether an AWS SDK error says the object is absent (`NoSuchKey`, or a bare 404 as HEAD
 * answers without a body). A missing bucket is not "absent": it stays a failure.
 *
 * @example
 * ```ts
 * if (isS3NotFound(error)) return false;
 * ```
 */
export function isS3NotFound(error: unknown): boolean {
  const { name, Code, $metadata } = shape(error);
  if (name === 'NoSuchBucket' || Code === 'NoSuchBucket') return false;
  return name === 'NoSuchKey' || name === 'NotFound' || $metadata?.httpStatusCode === 404;
}

/**
 * Whether an AWS SDK error is S3's answer to a range outside the object (`InvalidRange`, 416).
 *
 * @example
 * ```ts
 * if (isS3RangeError(error)) throw new OutputRangeError(range, size);
 * ```
 */
export function isS3RangeError(error: unknown): boolean {
  const { name, $metadata } = shape(error);
  return name === 'InvalidRange' || $metadata?.httpStatusCode === 416;
}

/**
 * Whether an AWS SDK error is S3's answer to a conditional write that found the object there
 * (`PreconditionFailed`, 412; `ConditionalRequestConflict`, 409, for a race in progress).
 *
 * @example
 * ```ts
 * if (isS3PreconditionFailed(error)) return readMarker();
 * ```
 */
export function isS3PreconditionFailed(error: unknown): boolean {
  const { name, Code, $metadata } = shape(error);
  return (
    name === 'PreconditionFailed' ||
    Code === 'PreconditionFailed' ||
    name === 'ConditionalRequestConflict' ||
    $metadata?.httpStatusCode === 412
  );
}

/**
 * One line naming an AWS SDK error: its S3 code, HTTP status and message
 * (`InvalidAccessKeyId (HTTP 403): …`), or the network error's own text.
 *
 * @example
 * ```ts
 * throw new StorageFailureError(`cannot read s3://b/k: ${describeS3Error(error)}`);
 * ```
 */
export function describeS3Error(error: unknown): string {
  const { name, message, $metadata } = shape(error);
  const status = $metadata?.httpStatusCode;
  const label = typeof name === 'string' && name !== '' ? name : 'Error';
  const text = typeof message === 'string' && message !== '' ? message : String(error);
  return `${label}${typeof status === 'number' ? ` (HTTP ${status})` : ''}: ${text}`;
}

/**
 * What an AWS SDK error says about reaching the bucket at all: no server (`unreachable`), a
 * wrong or unauthorised key (`credentials`), no such bucket (`missing`); `undefined` for
 * anything else.
 *
 * @example
 * ```ts
 * s3ConnectionProblem(error); // 'missing' for NoSuchBucket
 * ```
 */
export function s3ConnectionProblem(error: unknown): ConnectionProblem | undefined {
  const { name, Code, code, $metadata } = shape(error);
  const label = typeof Code === 'string' ? Code : name;
  if (label === 'NoSuchBucket') return 'missing';
  if (
    label === 'InvalidAccessKeyId' ||
    label === 'SignatureDoesNotMatch' ||
    label === 'AccessDenied' ||
    label === 'ExpiredToken' ||
    label === 'InvalidToken' ||
    $metadata?.httpStatusCode === 403
  )
    return 'credentials';
  if (
    name === 'TimeoutError' ||
    (typeof code === 'string' &&
      /^(ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ECONNRESET)$/.test(code))
  )
    return 'unreachable';
  return undefined;
}
