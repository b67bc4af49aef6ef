import { IntakeBusyError, TooManyUploadsError } from '../errors.js';
import { OutputStoreError, type OutputStoreErrorCode } from '../output-store-error.js';

const statusByCode: Record<
  OutputStoreErrorCode,
  400 | 401 | 403 | 404 | 408 | 409 | 413 | 416 | 429 | 500 | 503
> = {
  INVALID_EVENT: 400,
  PATH_REJECTED: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  IDEMPOTENCY_CONFLICT: 409,
  TOO_LARGE: 413,
  INVALID_RANGE: 416,
  STORAGE_FAILURE: 500,
  UNAVAILABLE: 503,
  TOO_MANY_REQUESTS: 429,
  TIMEOUT: 408,
  // A body missing behind a stored record, or a misconfigured store: the server's fault.
  BLOB_NOT_FOUND: 500,
  INVALID_OPTION: 500,
  // A list its reader will not follow: the request named something it may not be given.
  UNTRUSTED_LIST: 403,
  LIST_LIMIT: 413,
};

/**
 * JSON body of a failed intake request.
 *
 * @example
 * ```ts
 * const body: HttpErrorBody = { error: { code: 'TOO_LARGE', message: 'too big', limitBytes: 1024 } };
 * ```
 */
export interface HttpErrorBody {
  error: { code: string; message: string; field?: string; reason?: string; limitBytes?: number };
}

/**
 * Maps any error to an HTTP status and a JSON body. Store errors keep their code and the
 * details a client can act on (field, reason, limit); anything else is an opaque 500.
 *
 * @example
 * ```ts
 * const { status, body } = toHttpError(new OutputTooLargeError(1024)); // 413
 * ```
 */
export function toHttpError(error: unknown): {
  status: 400 | 401 | 403 | 404 | 408 | 409 | 413 | 416 | 429 | 500 | 503;
  body: HttpErrorBody;
} {
  if (!OutputStoreError.isInstance(error)) {
    return { status: 500, body: { error: { code: 'INTERNAL', message: 'internal error' } } };
  }
  const status = statusByCode[error.code];
  const details = error as unknown as { field?: unknown; reason?: unknown; limitBytes?: unknown };
  const message = status === 500 ? 'storage failure' : error.message;
  return {
    status,
    body: {
      error: {
        code: error.code,
        message,
        ...(typeof details.field === 'string' ? { field: details.field } : {}),
        ...(typeof details.reason === 'string' ? { reason: details.reason } : {}),
        ...(typeof details.limitBytes === 'number' ? { limitBytes: details.limitBytes } : {}),
      },
    },
  };
}

/**
 * Headers an error answer carries besides its JSON body: `WWW-Authenticate: Bearer` on a 401,
 * `Retry-After` when the intake is busy or the spawn has too many uploads in progress.
 *
 * @example
 * ```ts
 * errorHeaders(new OutputUnauthorizedError('token expired'), 401); // [['WWW-Authenticate', 'Bearer']]
 * ```
 */
export function errorHeaders(error: unknown, status: number): [name: string, value: string][] {
  const headers: [string, string][] = [];
  if (status === 401) headers.push(['WWW-Authenticate', 'Bearer']);
  if (IntakeBusyError.isInstance(error) || TooManyUploadsError.isInstance(error))
    headers.push(['Retry-After', String(error.retryAfterSeconds)]);
  return headers;
}
