import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Payload } from '@temporalio/common';
import { createEncryptionCodec } from '../encryption-codec.js';
import { createAuthenticator } from './authenticator.js';
import {
  type CodecHandlerOptions,
  isAuthenticated,
  isLoopbackHost,
  type ResolvedCodecOptions,
  resolveCodecOptions,
} from './codec-server-options.js';
import { corsFor } from './cors.js';
import { decodeForDisplay, type PayloadTrace } from './decode-payload.js';
import { type BodyOutcome, readLimitedBody } from './read-limited-body.js';
import { fromWirePayload, toWirePayload, type WirePayloads, wirePayloadsSchema } from './wire-payloads.js';

const route = /^\/(?:([^/]+)\/)?(decode|encode)\/?$/;

type Headers = [string, string][];

/**
 * The Temporal Codec Server protocol as a node:http request listener: `POST /decode` and
 * `POST /encode`, also under `/{namespace}/…`, each taking and answering
 * `{ payloads: [{ metadata: { key: base64 }, data: base64 }] }`.
 *
 * `/decode` decrypts with the key ring, resolves External Storage references of the served
 * owner through `resolveReference` (refusing other owners'), and cuts bodies over the display
 * limit. A payload it cannot open is answered in place as a string naming why (the key id it
 * lacks, the reference it may not read), and the others of the request are decoded: the answer
 * is still 200. `/encode` encrypts under the active key.
 *
 * Checks, in order: a browser `Origin` not configured is 403 with no CORS headers (preflight
 * included); without auth, a `Host` that is not loopback is 403 (DNS rebinding); a missing or
 * wrong token 401; more than `maxConcurrentRequests` 503; a body over `maxRequestBytes` 413; a
 * malformed body 400; past `requestTimeoutMs` 503. Every answer is logged by principal,
 * namespace, key ids and reference ids: never a payload's contents.
 *
 * @example
 * ```ts
 * const server = createServer(createCodecHandler({ keyRing, allowedOrigins: ['http://localhost:8233'] }));
 * server.listen(8234, '127.0.0.1');
 * ```
 */
export function createCodecHandler(
  options: CodecHandlerOptions,
): (request: IncomingMessage, response: ServerResponse) => void {
  const resolved = resolveCodecOptions(options);
  const authenticate = createAuthenticator(resolved.auth);
  const anonymous = !isAuthenticated(resolved);
  const codec = createEncryptionCodec({ keyRing: resolved.keyRing });
  let inFlight = 0;

  const serve = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const { logger } = resolved;
    const path = (request.url ?? '/').split('?')[0] as string;
    const remote = request.socket.remoteAddress;
    const cors = corsFor(request, resolved.allowedOrigins);
    if (cors.kind === 'refused') {
      logger.warn('codec request refused', { reason: 'origin not allowed', origin: cors.origin, remote });
      return answer(response, 403, [], { error: { code: 'FORBIDDEN', message: 'origin not allowed' } });
    }
    const corsHeaders = cors.kind === 'allowed' ? cors.headers : [];
    const match = route.exec(path);
    if (match === null)
      return answer(response, 404, corsHeaders, { error: { code: 'NOT_FOUND', message: 'no such route' } });
    if (request.method === 'OPTIONS') return answer(response, 204, corsHeaders);
    if (request.method !== 'POST')
      return answer(response, 405, [...corsHeaders, ['Allow', 'POST, OPTIONS']], {
        error: { code: 'METHOD_NOT_ALLOWED', message: 'use POST' },
      });
    if (anonymous && !isLoopbackHost(request.headers.host ?? '')) {
      logger.warn('codec request refused', { reason: 'non-loopback Host without auth', remote });
      return answer(response, 403, corsHeaders, { error: { code: 'FORBIDDEN', message: 'loopback only' } });
    }
    const authentication = await authenticate(request.headers.authorization);
    if (!authentication.ok) {
      logger.warn('codec request refused', { reason: authentication.reason, remote });
      return answer(response, 401, [...corsHeaders, ['WWW-Authenticate', 'Bearer']], {
        error: { code: 'UNAUTHORIZED', message: authentication.reason },
      });
    }
    if (inFlight >= resolved.maxConcurrentRequests) {
      logger.warn('codec request refused', { reason: 'busy', principal: authentication.principal });
      return answer(response, 503, [...corsHeaders, ['Retry-After', '1'], ['Connection', 'close']], {
        error: { code: 'UNAVAILABLE', message: 'codec server busy' },
      });
    }
    inFlight += 1;
    const signal = AbortSignal.timeout(resolved.requestTimeoutMs);
    try {
      const namespace = match[1] === undefined ? request.headers['x-namespace'] : safeDecode(match[1]);
      const body = await readLimitedBody(request, { maxBytes: resolved.maxRequestBytes, signal });
      const refused = refusal(body, resolved);
      if (refused !== undefined) {
        logger.warn('codec request refused', {
          reason: refused.message,
          principal: authentication.principal,
        });
        return answer(response, refused.status, [...corsHeaders, ...refused.headers], {
          error: { code: refused.code, message: refused.message },
        });
      }
      const payloads = parseBody(body)?.payloads;
      if (payloads === undefined)
        return answer(response, 400, corsHeaders, {
          error: {
            code: 'BAD_REQUEST',
            message: 'body is not { payloads: [{ metadata, data }] } with base64 values',
          },
        });
      if (payloads.length > resolved.maxPayloads)
        return answer(response, 413, corsHeaders, {
          error: { code: 'TOO_LARGE', message: `more than ${resolved.maxPayloads} payloads` },
        });
      const operation = match[2] as 'decode' | 'encode';
      const decoded = payloads.map(fromWirePayload);
      // The deadline answers even if a resolver does not heed its signal.
      const result = await untilAborted(
        operation === 'encode'
          ? codec.encode(decoded).then((encoded) => ({ payloads: encoded, traces: [] as PayloadTrace[] }))
          : decodeAll(decoded, resolved, codec, signal),
        signal,
      );
      logger.info(`codec ${operation}`, {
        principal: authentication.principal,
        namespace: typeof namespace === 'string' ? namespace : undefined,
        remote,
        payloads: operation === 'encode' ? payloads.length : result.traces,
      });
      return answer(response, 200, corsHeaders, { payloads: result.payloads.map(toWirePayload) });
    } catch (error) {
      if (signal.aborted) {
        logger.warn('codec request refused', { reason: 'timeout', principal: authentication.principal });
        return answer(response, 503, [...corsHeaders, ['Connection', 'close']], {
          error: { code: 'TIMEOUT', message: `no answer within ${resolved.requestTimeoutMs} ms` },
        });
      }
      logger.warn('codec request failed', { principal: authentication.principal, code: codeOf(error) });
      return answer(response, 500, corsHeaders, { error: { code: 'INTERNAL', message: 'internal error' } });
    } finally {
      inFlight -= 1;
    }
  };
  return (request, response) => {
    void serve(request, response).catch(() => response.destroy());
  };
}

async function decodeAll(
  payloads: Payload[],
  options: ResolvedCodecOptions,
  codec: ReturnType<typeof createEncryptionCodec>,
  signal: AbortSignal,
): Promise<{ payloads: Payload[]; traces: PayloadTrace[] }> {
  const out: Payload[] = [];
  const traces: PayloadTrace[] = [];
  let budget = options.maxResponseBytes;
  // One at a time: a request of many references reads the data plane one body at a time.
  for (const [index, payload] of payloads.entries()) {
    if (signal.aborted) break;
    const result = await decodeForDisplay(payload, index, {
      codec,
      ownerId: options.ownerId,
      resolveReference: options.resolveReference,
      ownerRule: options.ownerRule,
      limitBytes: Math.max(1, Math.min(options.displayLimitBytes, budget)),
      signal,
    });
    budget -= result.payload.data?.byteLength ?? 0;
    out.push(result.payload);
    traces.push(result.trace);
  }
  return { payloads: out, traces };
}

function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

function refusal(
  body: BodyOutcome,
  options: ResolvedCodecOptions,
): { status: number; code: string; message: string; headers: Headers } | undefined {
  if (body.kind === 'too-large')
    return {
      status: 413,
      code: 'TOO_LARGE',
      message: `request body over ${options.maxRequestBytes} bytes`,
      headers: [['Connection', 'close']],
    };
  return undefined;
}

function parseBody(body: BodyOutcome): WirePayloads | undefined {
  if (body.kind !== 'read') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(body.bytes.toString('utf8'));
  } catch {
    return undefined;
  }
  const parsed = wirePayloadsSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

function safeDecode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function codeOf(error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : 'unknown';
}

function answer(response: ServerResponse, status: number, headers: Headers, body?: unknown): void {
  const text = body === undefined ? '' : JSON.stringify(body);
  const record: Record<string, string | number> = {};
  for (const [name, value] of headers) record[name] = value;
  if (body !== undefined) record['Content-Type'] = 'application/json';
  record['Content-Length'] = Buffer.byteLength(text);
  record['Cache-Control'] = 'no-store';
  // A body left unread (a request refused before its body) is read and dropped, so the
  // connection stays usable for the client's next request.
  if (!response.req.complete) response.req.resume();
  response.writeHead(status, record);
  response.end(text);
}
