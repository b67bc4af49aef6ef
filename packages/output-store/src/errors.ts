import { codeGuard } from '@wharf/common';
import { OutputStoreError } from './output-store-error.js';

/**
 * Why an output could not be found.
 *
 * @example
 * ```ts
 * const reason: NotFoundReason = 'expired';
 * ```
 */
export type NotFoundReason = 'unknown' | 'deleted' | 'expired' | 'evicted';

/**
 * No output with this id is readable: it never existed, was deleted, expired, or was evicted
 * by the total-bytes cap.
 *
 * @example
 * ```ts
 * try { await store.stat(ref); } catch (error) {
 *   if (OutputNotFoundError.isNotFound(error) && error.reason === 'expired') reschedule();
 * }
 * ```
 */
export class OutputNotFoundError extends OutputStoreError {
  readonly outId: string;
  readonly reason: NotFoundReason;
  constructor(outId: string, reason: NotFoundReason) {
    super('NOT_FOUND', `output ${outId} not found (${reason})`);
    this.name = 'OutputNotFoundError';
    this.outId = outId;
    this.reason = reason;
  }

  /** True for a OutputNotFoundError from any realm (by code; not for other store errors). */
  static override readonly isInstance = codeGuard<OutputNotFoundError>(OutputStoreError, 'NOT_FOUND');

  /** The same as {@link OutputNotFoundError.isInstance} (errors are told apart by code). */
  static isNotFound(value: unknown): value is OutputNotFoundError {
    return OutputNotFoundError.isInstance(value);
  }
}

/**
 * The caller may not read or write this output (another owner, a ref outside its scope, or
 * an exhausted output quota).
 *
 * @example
 * ```ts
 * throw new OutputForbiddenError('output out_x belongs to another owner');
 * ```
 */
export class OutputForbiddenError extends OutputStoreError {
  constructor(message: string) {
    super('FORBIDDEN', message);
    this.name = 'OutputForbiddenError';
  }

  /** True for a OutputForbiddenError from any realm (by code; not for other store errors). */
  static override readonly isInstance = codeGuard<OutputForbiddenError>(OutputStoreError, 'FORBIDDEN');
}

/**
 * A credential is missing, malformed, wrongly signed or expired.
 *
 * @example
 * ```ts
 * throw new OutputUnauthorizedError('token expired at 2026-01-01T00:00:00.000Z');
 * ```
 */
export class OutputUnauthorizedError extends OutputStoreError {
  constructor(message: string) {
    super('UNAUTHORIZED', message);
    this.name = 'OutputUnauthorizedError';
  }

  /** True for a OutputUnauthorizedError from any realm (by code; not for other store errors). */
  static override readonly isInstance = codeGuard<OutputUnauthorizedError>(OutputStoreError, 'UNAUTHORIZED');
}

/**
 * A body is bigger than the configured limit. Nothing was stored.
 *
 * @example
 * ```ts
 * if (error instanceof OutputTooLargeError) console.log(error.limitBytes);
 * ```
 */
export class OutputTooLargeError extends OutputStoreError {
  readonly limitBytes: number;
  constructor(limitBytes: number, what = 'output body') {
    super('TOO_LARGE', `${what} exceeds the limit of ${limitBytes} bytes`);
    this.name = 'OutputTooLargeError';
    this.limitBytes = limitBytes;
  }

  /** True for a OutputTooLargeError from any realm (by code; not for other store errors). */
  static override readonly isInstance = codeGuard<OutputTooLargeError>(OutputStoreError, 'TOO_LARGE');
}

/**
 * One item of a stored list (a map's items) is larger than a reader takes: reading it would
 * cost about four times its size in memory (its bytes, its text, what is parsed from it), and
 * past ~512 MiB V8 cannot hold it as a string at all. Refused from the list's index, before any
 * of its bytes are read. `list` is the output the item is in, `position` its index (from 0).
 *
 * @example
 * ```ts
 * if (ListItemTooLargeError.isInstance(error)) console.error(`item ${error.position} of ${error.list}: ${error.sizeBytes} bytes`);
 * ```
 */
export class ListItemTooLargeError extends OutputStoreError {
  readonly list: string;
  readonly position: number;
  readonly sizeBytes: number;
  readonly limitBytes: number;
  constructor(options: { list: string; position: number; sizeBytes: number; limitBytes: number }) {
    super(
      'TOO_LARGE',
      `item ${options.position} of the list ${options.list} is ${options.sizeBytes} bytes, more than the ` +
        `${options.limitBytes} bytes one map item may have; store large data as outputs and list their refs or ` +
        'paths instead',
    );
    this.name = 'ListItemTooLargeError';
    this.list = options.list;
    this.position = options.position;
    this.sizeBytes = options.sizeBytes;
    this.limitBytes = options.limitBytes;
  }

  /** True for a ListItemTooLargeError from any realm (by name: `TOO_LARGE` is shared). */
  static override isInstance(value: unknown): value is ListItemTooLargeError {
    return OutputStoreError.isInstance(value) && value.name === 'ListItemTooLargeError';
  }
}

/**
 * An event (or request metadata) is malformed; `field` names the offending field.
 *
 * @example
 * ```ts
 * throw new InvalidOutputEventError('idempotencyKey', 'must be a non-empty string');
 * ```
 */
export class InvalidOutputEventError extends OutputStoreError {
  readonly field: string;
  readonly reason: string;
  constructor(field: string, reason: string) {
    super('INVALID_EVENT', `invalid output event: ${field} ${reason}`);
    this.name = 'InvalidOutputEventError';
    this.field = field;
    this.reason = reason;
  }

  /** True for a InvalidOutputEventError from any realm (by code; not for other store errors). */
  static override readonly isInstance = codeGuard<InvalidOutputEventError>(OutputStoreError, 'INVALID_EVENT');
}

/**
 * The idempotency key was already used for a different body.
 *
 * @example
 * ```ts
 * if (OutputStoreError.isInstance(error) && error.code === 'IDEMPOTENCY_CONFLICT') alert(error.message);
 * ```
 */
export class IdempotencyConflictError extends OutputStoreError {
  readonly idempotencyKey: string;
  readonly existingOutId: string;
  constructor(idempotencyKey: string, existingOutId: string) {
    super(
      'IDEMPOTENCY_CONFLICT',
      `idempotency key "${idempotencyKey}" was already used for output ${existingOutId} with a different body`,
    );
    this.name = 'IdempotencyConflictError';
    this.idempotencyKey = idempotencyKey;
    this.existingOutId = existingOutId;
  }

  /** True for a IdempotencyConflictError from any realm (by code; not for other store errors). */
  static override readonly isInstance = codeGuard<IdempotencyConflictError>(
    OutputStoreError,
    'IDEMPOTENCY_CONFLICT',
  );
}

/**
 * A byte range lies outside the body.
 *
 * @example
 * ```ts
 * throw new OutputRangeError({ start: 10, end: 5 }, 4);
 * ```
 */
export class OutputRangeError extends OutputStoreError {
  readonly sizeBytes: number;
  constructor(range: { start?: number | undefined; end?: number | undefined }, sizeBytes: number) {
    super(
      'INVALID_RANGE',
      `range ${range.start ?? 0}..${range.end ?? sizeBytes} is not within 0..${sizeBytes}`,
    );
    this.name = 'OutputRangeError';
    this.sizeBytes = sizeBytes;
  }

  /** True for a OutputRangeError from any realm (by code; not for other store errors). */
  static override readonly isInstance = codeGuard<OutputRangeError>(OutputStoreError, 'INVALID_RANGE');
}

/**
 * Why a `file` content path was refused.
 *
 * @example
 * ```ts
 * const reason: PathRejection = 'symlink-escape';
 * ```
 */
export type PathRejection =
  | 'not-absolute'
  | 'traversal'
  | 'outside-roots'
  | 'symlink-escape'
  | 'not-regular-file'
  | 'hard-link'
  | 'missing';

/**
 * A `file` content path was refused: relative, containing `..`, outside the allowed roots,
 * escaping them through a symlink, not a regular file, a file with more than one hard link
 * (another name, possibly outside the roots, shares its content), or missing.
 *
 * @example
 * ```ts
 * if (error instanceof OutputPathError && error.reason === 'symlink-escape') audit(error.path);
 * ```
 */
export class OutputPathError extends OutputStoreError {
  readonly path: string;
  readonly reason: PathRejection;
  constructor(path: string, reason: PathRejection, detail?: string) {
    super(
      'PATH_REJECTED',
      `file path ${JSON.stringify(path)} rejected (${reason})${detail ? `: ${detail}` : ''}`,
    );
    this.name = 'OutputPathError';
    this.path = path;
    this.reason = reason;
  }

  /** True for a OutputPathError from any realm (by code; not for other store errors). */
  static override readonly isInstance = codeGuard<OutputPathError>(OutputStoreError, 'PATH_REJECTED');
}

/**
 * The backing storage failed (I/O error, corrupt database, missing body file).
 *
 * @example
 * ```ts
 * throw new StorageFailureError('body file missing for out_x', { cause: error });
 * ```
 */
export class StorageFailureError extends OutputStoreError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('STORAGE_FAILURE', message, options);
    this.name = 'StorageFailureError';
  }

  /** True for a StorageFailureError from any realm (by code; not for other store errors). */
  static override readonly isInstance = codeGuard<StorageFailureError>(OutputStoreError, 'STORAGE_FAILURE');
}

/**
 * The intake is handling as many requests as it may at once; nothing was read or stored.
 * Retry after `retryAfterSeconds` (HTTP 503 with `Retry-After`).
 *
 * @example
 * ```ts
 * if (IntakeBusyError.isInstance(error)) await sleep(error.retryAfterSeconds * 1000);
 * ```
 */
export class IntakeBusyError extends OutputStoreError {
  readonly limit: number;
  readonly retryAfterSeconds: number;
  constructor(limit: number, retryAfterSeconds: number) {
    super(
      'UNAVAILABLE',
      `the intake is handling its limit of ${limit} concurrent requests; retry after ${retryAfterSeconds} s`,
    );
    this.name = 'IntakeBusyError';
    this.limit = limit;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /** True for a IntakeBusyError from any realm (by code; not for other store errors). */
  static override readonly isInstance = codeGuard<IntakeBusyError>(OutputStoreError, 'UNAVAILABLE');
}

/**
 * This spawn (or its run) already has as many uploads in progress at this intake as it may;
 * nothing was read or stored. Other spawns and runs still get slots. Retry after
 * `retryAfterSeconds` (HTTP 429 with `Retry-After`), or once an upload of the spawn ends.
 *
 * @example
 * ```ts
 * if (TooManyUploadsError.isInstance(error)) await sleep(error.retryAfterSeconds * 1000);
 * ```
 */
export class TooManyUploadsError extends OutputStoreError {
  /** Whose cap was reached: the spawn's (`maxUploadsPerSpawn`) or its run's (`maxUploadsPerRun`). */
  readonly scope: 'spawn' | 'run';
  readonly limit: number;
  readonly retryAfterSeconds: number;
  constructor(scope: 'spawn' | 'run', limit: number, retryAfterSeconds: number) {
    super(
      'TOO_MANY_REQUESTS',
      `this ${scope} already has its limit of ${limit} uploads in progress ` +
        `(maxUploadsPer${scope === 'spawn' ? 'Spawn' : 'Run'}); retry after ${retryAfterSeconds} s`,
    );
    this.name = 'TooManyUploadsError';
    this.scope = scope;
    this.limit = limit;
    this.retryAfterSeconds = retryAfterSeconds;
  }

  /** True for a TooManyUploadsError from any realm (by code; not for other store errors). */
  static override readonly isInstance = codeGuard<TooManyUploadsError>(OutputStoreError, 'TOO_MANY_REQUESTS');
}

/**
 * The intake cut an upload that was too slow: after its grace period the body arrived slower
 * than the intake's minimum rate (or, when one is set, the whole request took longer than
 * `requestTimeoutMs`). Nothing of it was stored; outputs stored before are untouched. HTTP 408;
 * a client sees code `TIMEOUT`, not a storage failure.
 *
 * @example
 * ```ts
 * try { await client.emit(stream); } catch (error) {
 *   if (UploadTimeoutError.isInstance(error)) console.error('upload too slow:', error.message);
 * }
 * ```
 */
export class UploadTimeoutError extends OutputStoreError {
  constructor(message: string) {
    super('TIMEOUT', message);
    this.name = 'UploadTimeoutError';
  }

  /** True for a UploadTimeoutError from any realm (by code; not for other store errors). */
  static override readonly isInstance = codeGuard<UploadTimeoutError>(OutputStoreError, 'TIMEOUT');
}

/**
 * A blob store holds no body under this SHA-256 address (never stored, or removed).
 *
 * @example
 * ```ts
 * try { await blobs.open(sha256); } catch (error) {
 *   if (BlobNotFoundError.isInstance(error)) console.error(`no body ${error.sha256}`);
 * }
 * ```
 */
export class BlobNotFoundError extends OutputStoreError {
  readonly sha256: string;
  constructor(sha256: string, location: string) {
    super('BLOB_NOT_FOUND', `no blob ${sha256} in ${location}`);
    this.name = 'BlobNotFoundError';
    this.sha256 = sha256;
  }

  /** True for a BlobNotFoundError from any realm (by code; not for other store errors). */
  static override readonly isInstance = codeGuard<BlobNotFoundError>(OutputStoreError, 'BLOB_NOT_FOUND');
}

/**
 * A stored list (manifest, chunk, item index) that its reader will not follow: a part that
 * Wharf's own writer did not produce (whatever its content type says), a part of another
 * owner or of a run outside the reader's lineage, a part named twice, or counts that do not
 * add up to what the writer recorded. `outId` names the part, `list` the list being read.
 *
 * @example
 * ```ts
 * try { await manifestRefs(store, ref, { scope: { ownerId: 'team-a' } }); }
 * catch (error) { if (UntrustedListError.isInstance(error)) console.error(error.outId, error.reason); }
 * ```
 */
export class UntrustedListError extends OutputStoreError {
  readonly list: string;
  readonly outId: string;
  readonly reason: string;
  constructor(list: string, outId: string, reason: string) {
    super(
      'UNTRUSTED_LIST',
      list === outId
        ? `stored list ${list} refused: ${reason}`
        : `stored list ${list} refused at ${outId}: ${reason}`,
    );
    this.name = 'UntrustedListError';
    this.list = list;
    this.outId = outId;
    this.reason = reason;
  }

  /** True for an UntrustedListError from any realm (by code). */
  static override readonly isInstance = codeGuard<UntrustedListError>(OutputStoreError, 'UNTRUSTED_LIST');
}

/**
 * Reading a stored list went past one of its reader's bounds (`limit`: nesting `depth`,
 * `parts` read, `bytes` read, or one part's `partBytes`); `value` is what was reached.
 *
 * @example
 * ```ts
 * if (ListLimitError.isInstance(error)) console.error(`${error.list}: over ${error.limit} ${error.max}`);
 * ```
 */
export class ListLimitError extends OutputStoreError {
  readonly list: string;
  readonly limit: 'depth' | 'parts' | 'bytes' | 'partBytes';
  readonly max: number;
  constructor(list: string, limit: ListLimitError['limit'], max: number, detail: string) {
    super('LIST_LIMIT', `stored list ${list}: ${detail} (limit ${limit} is ${max})`);
    this.name = 'ListLimitError';
    this.list = list;
    this.limit = limit;
    this.max = max;
  }

  /** True for a ListLimitError from any realm (by code). */
  static override readonly isInstance = codeGuard<ListLimitError>(OutputStoreError, 'LIST_LIMIT');
}

/**
 * A store or blob store was constructed with an option it cannot use; `option` names it.
 *
 * @example
 * ```ts
 * throw new InvalidStoreOptionError('schema', 'must be a lower-case SQL identifier');
 * ```
 */
export class InvalidStoreOptionError extends OutputStoreError {
  readonly option: string;
  readonly reason: string;
  constructor(option: string, reason: string) {
    super('INVALID_OPTION', `invalid store option: ${option} ${reason}`);
    this.name = 'InvalidStoreOptionError';
    this.option = option;
    this.reason = reason;
  }

  /**
   * True for a InvalidStoreOptionError from any realm. By name: `INVALID_OPTION` is shared with
   * the configuration's `InvalidStoreUrlError`, which has other fields.
   */
  static override isInstance(value: unknown): value is InvalidStoreOptionError {
    return OutputStoreError.isInstance(value) && value.name === 'InvalidStoreOptionError';
  }
}

/**
 * A blob store (a directory, a bucket prefix) already holds the bodies of another Wharf output
 * store: its marker (`wharf-store.json`) names another store id. Two stores on one blob store
 * would each take the other's bodies for unreferenced ones and remove them, so the second is
 * refused. `ownerStoreId` and `ownerStore` say which store holds it.
 *
 * @example
 * ```ts
 * if (BlobStoreClaimedError.isInstance(error)) console.error(`${error.location} belongs to ${error.ownerStore}`);
 * ```
 */
export class BlobStoreClaimedError extends OutputStoreError {
  readonly location: string;
  readonly ownerStoreId: string;
  readonly ownerStore: string;
  constructor(location: string, owner: { storeId: string; store: string }) {
    super(
      'INVALID_OPTION',
      `${location} holds the bodies of another Wharf output store (${owner.store}, store id ${owner.storeId}); ` +
        'give each store a blob store (directory or bucket prefix) of its own',
    );
    this.name = 'BlobStoreClaimedError';
    this.location = location;
    this.ownerStoreId = owner.storeId;
    this.ownerStore = owner.store;
  }

  /** True for a BlobStoreClaimedError from any realm (by name: `INVALID_OPTION` is shared). */
  static override isInstance(value: unknown): value is BlobStoreClaimedError {
    return OutputStoreError.isInstance(value) && value.name === 'BlobStoreClaimedError';
  }
}

/**
 * A blob store (a directory, a bucket prefix) holds bodies but no marker (`wharf-store.json`):
 * its marker was deleted, or it was written before markers existed. The bodies may be another
 * output store's, whose gc would count them unreferenced and remove them all, so a store claims
 * such a location only when it proves them its own: its newest stored bodies are all there. The
 * store that wrote them does that on its next open or gc and writes its marker again; any other
 * store is refused with this error, naming the `location`.
 *
 * @example
 * ```ts
 * if (BlobStoreUnmarkedError.isInstance(error)) console.error(`${error.location}: ${error.message}`);
 * ```
 */
export class BlobStoreUnmarkedError extends OutputStoreError {
  readonly location: string;
  constructor(location: string) {
    super(
      'INVALID_OPTION',
      `${location} holds bodies but no wharf-store.json marker, and they are not this output store's, ` +
        'so it will not claim it (its gc would remove them as unreferenced). To recover, open the output store ' +
        'that wrote them (with its database and this blob store): it proves them its own and writes its marker ' +
        'again; give this store a directory or bucket prefix of its own, or empty the location first if its ' +
        'bodies are no longer wanted',
    );
    this.name = 'BlobStoreUnmarkedError';
    this.location = location;
  }

  /** True for a BlobStoreUnmarkedError from any realm (by name: `INVALID_OPTION` is shared). */
  static override isInstance(value: unknown): value is BlobStoreUnmarkedError {
    return OutputStoreError.isInstance(value) && value.name === 'BlobStoreUnmarkedError';
  }
}

/**
 * What kept a store from its server: none answered (`unreachable`), it refused the
 * credentials (`credentials`), the database or bucket does not exist (`missing`), or it
 * refused the connection for another reason (`refused`: too many connections, shutting down…).
 *
 * @example
 * ```ts
 * const problem: ConnectionProblem = 'credentials';
 * ```
 */
export type ConnectionProblem = 'unreachable' | 'credentials' | 'missing' | 'refused';

/**
 * A store could not reach or use its server: PostgreSQL (no server at the address, a wrong
 * password, a missing database) or the blob store's S3 bucket (no bucket, a wrong key).
 * `server` names where, without a password (`wharf@db:5432/wharf`, `s3://bucket/prefix`);
 * `problem` says what went wrong. A {@link StorageFailureError} by code.
 *
 * @example
 * ```ts
 * if (StoreConnectionError.isInstance(error) && error.problem === 'credentials') console.error(error.message);
 * ```
 */
export class StoreConnectionError extends StorageFailureError {
  readonly problem: ConnectionProblem;
  readonly server: string;
  constructor(server: string, problem: ConnectionProblem, detail: string, options?: { cause?: unknown }) {
    super(`cannot use ${server}: ${detail}`, options);
    this.name = 'StoreConnectionError';
    this.problem = problem;
    this.server = server;
  }

  /** True for a StoreConnectionError from any realm (by name: `STORAGE_FAILURE` is shared). */
  static override isInstance(value: unknown): value is StoreConnectionError {
    return OutputStoreError.isInstance(value) && value.name === 'StoreConnectionError';
  }
}
