import type { IncomingMessage, ServerResponse } from 'node:http';
import { OutputTooLargeError } from '../errors.js';
import type { SpawnTokenClaims } from '../schemas.js';
import { readDeclaredBody } from './declared-body.js';
import { type EmitRequestHeaders, emitRequestHeaders } from './emit-request-headers.js';
import { errorHeaders, toHttpError } from './http-error.js';
import { type IntakeCore, smallBodyBytes } from './intake-core.js';
import { jsonEnvelopeType } from './json-envelope-type.js';
import { writeJson } from './json-response.js';
import { type RawEventMeta, rawEventMeta } from './raw-event-meta.js';

/**
 * Takes a request and answers it, or declines it (answers `false`) having read nothing of it
 * and written nothing, for the next handler to serve.
 *
 * @example
 * ```ts
 * const server = createServer((request, response) => {
 *   if (!fastPath(request, response)) fallback(request, response);
 * });
 * ```
 */
export type FastPath = (request: IncomingMessage, response: ServerResponse) => boolean;

/** A Host the Hono adapter takes as is (no URL parsing): what `@hono/node-server` checks. */
const plainHost = /^[a-z0-9._-]+(?::(?:[1-5]\d{3,4}|[6-9]\d{3}))?$/;
const digits = /^\d+$/;

/**
 * The hot route of the intake served straight on node:http: a raw-body EMIT
 * (`POST /v1/outputs` with a `Content-Length` of at most 64 KiB, not a JSON envelope). It
 * shares the {@link IntakeCore} (concurrency cap, token cache, quota, store) with the Hono app
 * and answers with the same statuses, headers and JSON bodies.
 *
 * Every check that can refuse a request before its body is read (busy, token, declared size,
 * metadata headers) runs first, synchronously; on any refusal, and for anything unusual
 * (another route or method, a chunked or larger body, a JSON envelope, a repeated or padded
 * header, a Host the adapter would parse), the request is declined untouched and the Hono app
 * serves it, so every such answer is Hono's own. Only a request that passed them all has its
 * body read here; what can still fail after that (quota, idempotency conflict, the store's own
 * validation, storage) is answered with `toHttpError`'s status and body, as the Hono app's
 * error handler does.
 *
 * @example
 * ```ts
 * const core = new IntakeCore({ store, secret });
 * const fastPath = emitFastPath(core);
 * const fallback = getRequestListener(intakeApp(core).fetch);
 * createServer((request, response) => {
 *   if (!fastPath(request, response)) void fallback(request, response);
 * });
 * ```
 */
export function emitFastPath(core: IntakeCore): FastPath {
  return (request, response) => {
    if (request.method !== 'POST' || request.url !== '/v1/outputs') return false;
    const headers = emitRequestHeaders(request.rawHeaders);
    if (headers === undefined || !isPlainEmit(headers) || core.busy) return false;
    const declared = Number(headers['content-length']);
    let claims: SpawnTokenClaims;
    let meta: RawEventMeta;
    try {
      claims = core.claimsOf(headers.authorization);
      if (declared > core.bodyLimit(claims)) return false;
      meta = rawEventMeta((name) => headers[name as keyof EmitRequestHeaders] || undefined);
    } catch {
      return false;
    }
    core.admit();
    void storeEmit({ core, claims, meta, declared, request, response });
    return true;
  };
}

/** A raw-body POST the fast path may read: small, declared, not chunked, a Host taken as is. */
function isPlainEmit(headers: EmitRequestHeaders): boolean {
  const length = headers['content-length'];
  return (
    headers['transfer-encoding'] === undefined &&
    length !== undefined &&
    digits.test(length) &&
    Number(length) <= smallBodyBytes &&
    headers.host !== undefined &&
    plainHost.test(headers.host) &&
    !(headers['content-type'] ?? '').startsWith(jsonEnvelopeType)
  );
}

interface AdmittedEmit {
  readonly core: IntakeCore;
  readonly claims: SpawnTokenClaims;
  readonly meta: RawEventMeta;
  readonly declared: number;
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
}

async function storeEmit({ core, claims, meta, declared, request, response }: AdmittedEmit): Promise<void> {
  try {
    const bytes = await readDeclaredBody(request, declared);
    const limit = core.bodyLimit(claims);
    if (bytes.byteLength > limit) throw new OutputTooLargeError(limit, 'request body');
    const { ref, record, created } = await core.storeDraft(claims, {
      ...meta,
      content: { kind: 'bytes', bytes },
    });
    writeJson(response, created ? 201 : 200, JSON.stringify({ ref, record }), [
      ['Location', `/v1/outputs/${ref.outId}`],
    ]);
  } catch (error) {
    const { status, body } = toHttpError(error);
    writeJson(response, status, JSON.stringify(body), errorHeaders(error, status));
  } finally {
    core.leave();
  }
}
