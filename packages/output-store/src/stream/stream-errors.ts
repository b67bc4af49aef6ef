import { OutputStoreError } from '../output-store-error.js';

/**
 * An `append`, `flush` or `abandon` on a stream attempt that is sealed or abandoned (code
 * `INVALID_EVENT`). Nothing of the call was stored.
 *
 * @example
 * ```ts
 * if (StreamClosedError.isInstance(error)) console.error(`${error.stream} attempt ${error.attempt} is ${error.state}`);
 * ```
 */
export class StreamClosedError extends OutputStoreError {
  readonly stream: string;
  readonly attempt: number;
  readonly state: 'sealed' | 'abandoned';
  constructor(stream: string, attempt: number, state: 'sealed' | 'abandoned', what: string) {
    super('INVALID_EVENT', `stream ${stream} attempt ${attempt} is ${state}: cannot ${what}`);
    this.name = 'StreamClosedError';
    this.stream = stream;
    this.attempt = attempt;
    this.state = state;
  }

  /** True for a StreamClosedError from any realm (by name: `INVALID_EVENT` is shared). */
  static override isInstance(value: unknown): value is StreamClosedError {
    return OutputStoreError.isInstance(value) && value.name === 'StreamClosedError';
  }
}

/**
 * A chunk (or the seal) of a stream could not be stored (code `STORAGE_FAILURE`; the store's
 * error is the `cause`). The bytes are kept: the next `flush`, `append` past the threshold or
 * `seal` stores the same chunk again under the same key, so nothing is lost or stored twice.
 *
 * @example
 * ```ts
 * if (StreamFlushError.isInstance(error)) console.error(`chunk ${error.seq} of ${error.stream}:`, error.cause);
 * ```
 */
export class StreamFlushError extends OutputStoreError {
  readonly stream: string;
  readonly attempt: number;
  /** The chunk's sequence number, or undefined for the seal. */
  readonly seq: number | undefined;
  constructor(stream: string, attempt: number, seq: number | undefined, cause: unknown) {
    const what = seq === undefined ? 'the seal' : `chunk ${seq}`;
    const reason = cause instanceof Error ? cause.message : String(cause);
    super('STORAGE_FAILURE', `stream ${stream} attempt ${attempt}: ${what} was not stored: ${reason}`, {
      cause,
    });
    this.name = 'StreamFlushError';
    this.stream = stream;
    this.attempt = attempt;
    this.seq = seq;
  }

  /** True for a StreamFlushError from any realm (by name: `STORAGE_FAILURE` is shared). */
  static override isInstance(value: unknown): value is StreamFlushError {
    return OutputStoreError.isInstance(value) && value.name === 'StreamFlushError';
  }
}

/**
 * No part of this stream is stored (code `NOT_FOUND`): it was never opened, or removed.
 *
 * @example
 * ```ts
 * if (StreamNotFoundError.isInstance(error)) console.error(`no stream ${error.stream}`);
 * ```
 */
export class StreamNotFoundError extends OutputStoreError {
  readonly stream: string;
  constructor(stream: string, detail = 'no part of it is stored') {
    super('NOT_FOUND', `stream ${stream} not found (${detail})`);
    this.name = 'StreamNotFoundError';
    this.stream = stream;
  }

  /** True for a StreamNotFoundError from any realm (by name: `NOT_FOUND` is shared). */
  static override isInstance(value: unknown): value is StreamNotFoundError {
    return OutputStoreError.isInstance(value) && value.name === 'StreamNotFoundError';
  }
}

/**
 * A reader asked to resume after a chunk of an attempt whose chunks `compactStream` removed
 * (code `NOT_FOUND`): the attempt is sealed, read its seal (`sealRef`) whole instead.
 *
 * @example
 * ```ts
 * if (StreamCompactedError.isInstance(error)) await store.get({ outId: error.sealOutId });
 * ```
 */
export class StreamCompactedError extends OutputStoreError {
  readonly stream: string;
  readonly attempt: number;
  readonly sealOutId: string;
  constructor(stream: string, attempt: number, sealOutId: string) {
    super(
      'NOT_FOUND',
      `stream ${stream} attempt ${attempt} was compacted: its chunks are gone, its whole text is ${sealOutId}`,
    );
    this.name = 'StreamCompactedError';
    this.stream = stream;
    this.attempt = attempt;
    this.sealOutId = sealOutId;
  }

  /** True for a StreamCompactedError from any realm (by name: `NOT_FOUND` is shared). */
  static override isInstance(value: unknown): value is StreamCompactedError {
    return OutputStoreError.isInstance(value) && value.name === 'StreamCompactedError';
  }
}
