import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { retryAfterMs } from '@wharf/common';
import { spawnEnv } from '../env-names.js';
import { UploadTimeoutError } from '../errors.js';
import type { Manifest } from '../manifest/manifest-format.js';
import { OutputStoreError, type OutputStoreErrorCode } from '../output-store-error.js';
import { emitResponseSchema, errorResponseSchema, outputRecordSchema } from '../schemas.js';
import type { OutputRecord, OutputRef } from '../types.js';
import { emitKey } from './emit-key.js';
import { EmitRetriesExhaustedError } from './emit-retries-exhausted-error.js';
import {
  type EmitRetryOptions,
  type EmitRetryPolicy,
  emitRetryPolicy,
  isRetryableStatus,
  retryDelayMs,
} from './emit-retry.js';
import { clientManifest, clientManifestRefs } from './read-manifest-client.js';
import { ReplayableBody } from './replayable-body.js';
import { unixSocketFetch, unixSocketPath } from './unix-socket-fetch.js';

/**
 * Metadata of one {@link OutputClient.emit}. Inside a Wharf spawn (`WHARF_EMIT_KEY` set) keys
 * are derived from that retry-stable base (see `emitKey`): an `idempotencyKey` is scoped
 * under it, and without one the key comes from the body (or, for a stream, from the EMIT's
 * position in the process), so a retried spawn gets the same refs. Outside a spawn the
 * `idempotencyKey` is used as given, and without one a random key.
 *
 * @example
 * ```ts
 * const meta: EmitMeta = { name: 'summary.md', contentType: 'text/markdown', idempotencyKey: 'summary' };
 * ```
 */
export interface EmitMeta {
  readonly idempotencyKey?: string;
  readonly name?: string;
  readonly contentType?: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly ttlMs?: number;
}

/**
 * A body the client can send: text, bytes or a byte stream (sent without buffering).
 *
 * @example
 * ```ts
 * const body: EmitBody = process.stdin; // `cmd | node emit.mjs`
 * ```
 */
export type EmitBody = string | Uint8Array | AsyncIterable<Uint8Array>;

/**
 * Options of {@link OutputClient}; anything left out is read from the injected environment.
 *
 * @example
 * ```ts
 * const client = new OutputClient({ url: 'http://127.0.0.1:8787', token, retry: { maxAttempts: 3 } });
 * ```
 */
export interface OutputClientOptions {
  /**
   * The intake: `http://host:port`, or `http+unix://<socket path, percent-encoded>` for an
   * intake on a Unix socket (what a sandboxed script without a network is given).
   */
  readonly url?: string;
  readonly token?: string;
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly fetch?: typeof fetch;
  /** How an EMIT answered 503/429 is retried (see {@link EmitRetryOptions}). */
  readonly retry?: EmitRetryOptions;
}

const knownCodes = new Set<string>([
  'NOT_FOUND',
  'INVALID_EVENT',
  'FORBIDDEN',
  'UNAUTHORIZED',
  'TOO_LARGE',
  'IDEMPOTENCY_CONFLICT',
  'INVALID_RANGE',
  'PATH_REJECTED',
  'STORAGE_FAILURE',
  'UNAVAILABLE',
  'TOO_MANY_REQUESTS',
  'TIMEOUT',
]);

/**
 * The tiny client a spawned subagent uses: emit its output to the intake and read the
 * outputs named in `IN_REFS`, using the environment its spawner gave it (`spawnEnv`).
 *
 * @example
 * ```ts
 * const client = new OutputClient();
 * const [first] = client.inRefs;
 * const input = first ? await client.readInputText(first) : '';
 * await client.emit(input.toUpperCase(), { name: 'shout.txt', idempotencyKey: 'shout' });
 * ```
 */
export class OutputClient {
  readonly url: string;
  readonly inRefs: readonly OutputRef[];
  /** `WHARF_EMIT_KEY`, when the spawn was given one. */
  readonly emitKeyBase: string | undefined;
  readonly #token: string;
  readonly #fetch: typeof fetch;
  readonly #retry: EmitRetryPolicy;
  #sequence = 0;

  constructor(options: OutputClientOptions = {}) {
    const env = options.env ?? process.env;
    const url = options.url ?? env[spawnEnv.outputUrl];
    const token = options.token ?? env[spawnEnv.outputToken];
    if (!url) throw new OutputStoreError('INVALID_EVENT', `${spawnEnv.outputUrl} is not set`);
    if (!token) throw new OutputStoreError('UNAUTHORIZED', `${spawnEnv.outputToken} is not set`);
    const socketPath = unixSocketPath(url);
    // Over a socket the host part means nothing: requests go to the socket whatever it says.
    this.url = socketPath === undefined ? url.replace(/\/+$/, '') : 'http://intake';
    this.#token = token;
    this.#fetch = options.fetch ?? (socketPath === undefined ? fetch : unixSocketFetch(socketPath));
    this.#retry = emitRetryPolicy(options.retry);
    this.emitKeyBase = env[spawnEnv.emitKey] || undefined;
    this.inRefs = inRefsOf(env);
  }

  /**
   * Sends a body to the intake and returns its ref. An upload the intake cut as too slow
   * rejects with an `UploadTimeoutError` (code `TIMEOUT`), one refused for the spawn's uploads
   * in progress is retried as a busy one (429).
   */
  async emit(body: EmitBody, meta: EmitMeta = {}): Promise<OutputRef> {
    const contentType =
      meta.contentType ??
      (typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/octet-stream');
    const key = emitKey({
      base: this.emitKeyBase,
      key: meta.idempotencyKey,
      body: typeof body === 'string' || body instanceof Uint8Array ? body : undefined,
      name: meta.name,
      contentType,
      sequence: this.#sequence++,
    });
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#token}`,
      'idempotency-key': encodeURIComponent(key ?? randomUUID()),
      'content-type': contentType,
    };
    if (meta.name !== undefined) headers['x-wharf-name'] = encodeURIComponent(meta.name);
    if (meta.labels !== undefined)
      headers['x-wharf-labels'] = new URLSearchParams(Object.entries(meta.labels)).toString();
    if (meta.ttlMs !== undefined) headers['x-wharf-ttl-ms'] = String(meta.ttlMs);
    const streaming = typeof body !== 'string' && !(body instanceof Uint8Array);
    const replayable = streaming ? new ReplayableBody(body, this.#retry.maxReplayBytes) : undefined;
    try {
      const response = await this.#send(headers, replayable ?? (body as string | Uint8Array));
      const parsed = emitResponseSchema.safeParse(await this.#json(response));
      if (!parsed.success)
        throw new OutputStoreError('STORAGE_FAILURE', 'unexpected response from the intake');
      return parsed.data.ref;
    } finally {
      await replayable?.close();
    }
  }

  /**
   * POSTs the EMIT, again while the intake answers 503/429 and the retry policy allows: after
   * `Retry-After` (plus jitter) when given, else jittered exponential backoff; every attempt
   * carries the same idempotency key. The last busy answer becomes an {@link EmitRetriesExhaustedError}.
   */
  async #send(
    headers: Record<string, string>,
    body: string | Uint8Array | ReplayableBody,
  ): Promise<Response> {
    const policy = this.#retry;
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      const streaming = body instanceof ReplayableBody;
      const response = await this.#fetch(`${this.url}/v1/outputs`, {
        method: 'POST',
        headers,
        body: (streaming ? body.stream() : body) as RequestInit['body'],
        ...(streaming ? { duplex: 'half' } : {}),
      } as RequestInit);
      if (!isRetryableStatus(response.status)) return response;
      const waitMs = retryAfterMs(response.headers, { now: Date.now() });
      const cause = await this.#json(response).catch((error: unknown) => error);
      const delay = retryDelayMs({ attempt, retryAfterMs: waitMs, policy, random: Math.random });
      const elapsedMs = Date.now() - started;
      const reason =
        attempt >= policy.maxAttempts
          ? undefined
          : elapsedMs + delay > policy.maxElapsedMs
            ? `the next attempt would start after ${policy.maxElapsedMs} ms`
            : streaming && !body.replayable
              ? `the streamed body outgrew the ${policy.maxReplayBytes}-byte replay buffer`
              : 'retry';
      if (reason !== 'retry')
        throw new EmitRetriesExhaustedError({
          attempts: attempt,
          lastStatus: response.status,
          elapsedMs,
          ...(reason === undefined ? {} : { reason }),
          cause,
        });
      await sleep(delay);
    }
  }

  /** The record of an output this spawn may read. */
  async stat(ref: OutputRef): Promise<OutputRecord> {
    const response = await this.#fetch(`${this.url}/v1/outputs/${encodeURIComponent(ref.outId)}`, {
      headers: { authorization: `Bearer ${this.#token}` },
    });
    const parsed = outputRecordSchema.safeParse(await this.#json(response));
    if (!parsed.success) throw new OutputStoreError('STORAGE_FAILURE', 'unexpected response from the intake');
    return parsed.data as OutputRecord;
  }

  /** The whole body of an input ref. */
  async readInput(ref: OutputRef): Promise<Uint8Array> {
    const response = await this.#fetch(`${this.url}/v1/outputs/${encodeURIComponent(ref.outId)}/body`, {
      headers: { authorization: `Bearer ${this.#token}` },
    });
    if (!response.ok) await this.#json(response);
    return new Uint8Array(await response.arrayBuffer());
  }

  /** A stored list's manifest (a fan-out's outputs): its count and chunks. */
  async readManifest(ref: OutputRef): Promise<Manifest> {
    return clientManifest(this, ref);
  }

  /** The out ids a stored list names, chunk by chunk, in order. */
  async manifestRefs(ref: OutputRef): Promise<OutputRef[]> {
    return clientManifestRefs(this, ref);
  }

  /** The body of an input ref decoded as UTF-8. */
  async readInputText(ref: OutputRef): Promise<string> {
    return Buffer.from(await this.readInput(ref)).toString('utf8');
  }

  async #json(response: Response): Promise<unknown> {
    let value: unknown;
    try {
      value = await response.json();
    } catch {
      // node:http's own 408 (headers or `requestTimeoutMs` too slow) carries no JSON.
      if (response.status === 408)
        throw new UploadTimeoutError('the intake cut the request as too slow (408 Request Timeout)');
      throw new OutputStoreError('STORAGE_FAILURE', `intake answered ${response.status} without JSON`);
    }
    if (response.ok) return value;
    const failure = errorResponseSchema.safeParse(value);
    const code =
      failure.success && knownCodes.has(failure.data.error.code)
        ? failure.data.error.code
        : 'STORAGE_FAILURE';
    const message = failure.success ? failure.data.error.message : `intake answered ${response.status}`;
    if (code === 'TIMEOUT' || response.status === 408) throw new UploadTimeoutError(message);
    throw new OutputStoreError(code as OutputStoreErrorCode, message);
  }
}

/** `IN_REFS` (comma-separated), or the JSON array of ids in the file `WHARF_IN_REFS_FILE` names. */
function inRefsOf(env: Readonly<Record<string, string | undefined>>): OutputRef[] {
  const file = env[spawnEnv.inRefsFile];
  let ids: unknown[];
  if (file) {
    try {
      ids = JSON.parse(readFileSync(file, 'utf8')) as unknown[];
    } catch (error) {
      throw new OutputStoreError(
        'INVALID_EVENT',
        `${spawnEnv.inRefsFile} (${file}): ${(error as Error).message}`,
      );
    }
    if (!Array.isArray(ids))
      throw new OutputStoreError(
        'INVALID_EVENT',
        `${spawnEnv.inRefsFile} (${file}) does not hold a JSON array`,
      );
  } else ids = (env[spawnEnv.inRefs] ?? '').split(',');
  return ids
    .filter((outId): outId is string => typeof outId === 'string')
    .map((outId) => outId.trim())
    .filter((outId) => outId.length > 0)
    .map((outId) => ({ outId }));
}

let defaultClient: OutputClient | undefined;

function client(): OutputClient {
  defaultClient ??= new OutputClient();
  return defaultClient;
}

/**
 * Emits a body with the client configured from the environment.
 *
 * @example
 * ```ts
 * import { emit } from '@wharf/output-store/client';
 * const ref = await emit('# Summary\n…', { name: 'summary.md', idempotencyKey: 'summary' });
 * ```
 */
export function emit(body: EmitBody, meta: EmitMeta = {}): Promise<OutputRef> {
  return client().emit(body, meta);
}

/**
 * Reads an input ref's body with the client configured from the environment.
 *
 * @example
 * ```ts
 * import { inputRefs, readInput } from '@wharf/output-store/client';
 * const bodies = await Promise.all(inputRefs().map((ref) => readInput(ref)));
 * ```
 */
export function readInput(ref: OutputRef): Promise<Uint8Array> {
  return client().readInput(ref);
}

/**
 * The refs injected as `IN_REFS`.
 *
 * @example
 * ```ts
 * const refs = inputRefs(); // [{ outId: 'out_…' }]
 * ```
 */
export function inputRefs(): readonly OutputRef[] {
  return client().inRefs;
}
