import type { IncomingMessage, ServerResponse } from 'node:http';
import { emitRoute } from './emit-route.js';
import { IntakeCore } from './intake-core.js';
import { IntakeExchange } from './intake-exchange.js';
import { intakeHeaders } from './intake-headers.js';
import type { IntakeOptions } from './intake-options.js';
import { bodyRoute, recordRoute } from './read-routes.js';

/**
 * The intake as a node:http request listener, with the listener of `checkContinue` beside it
 * (a server must route both to it: see {@link createIntakeHandler}).
 *
 * @example
 * ```ts
 * const handler: IntakeHandler = createIntakeHandler({ store, secret });
 * ```
 */
export interface IntakeHandler {
  (request: IncomingMessage, response: ServerResponse): void;
  /**
   * For node:http's `checkContinue` event: a request sent with `Expect: 100-continue` is told
   * to send its body only once every check that can refuse it before its body has passed;
   * a refused one (401, 413, 503…) gets its answer instead, and no `100 Continue`.
   */
  readonly checkContinue: (request: IncomingMessage, response: ServerResponse) => void;
}

const outputPath = /^\/v1\/outputs\/([^/]+)(\/body)?$/;
const noRoute = { error: { code: 'NOT_FOUND', message: 'no such route' } };

/**
 * The intake HTTP API on node:http: `POST /v1/outputs` (see `emitRoute`), `GET /v1/outputs/:id`,
 * `GET /v1/outputs/:id/body` (with `Range`) and `GET /healthz`. Every `/v1` request counts
 * against `maxConcurrentRequests` (beyond it: 503 with `Retry-After`) and needs
 * `Authorization: Bearer <spawn token>` (the scheme in any case). Mount it on a server of your
 * own with both events, or use `createIntakeServer`.
 *
 * @example
 * ```ts
 * const handler = createIntakeHandler({ store: new InMemoryOutputStore(), secret });
 * const server = createServer(handler);
 * server.on('checkContinue', handler.checkContinue);
 * ```
 */
export function createIntakeHandler(options: IntakeOptions): IntakeHandler {
  return intakeHandler(new IntakeCore(options));
}

/**
 * The {@link IntakeHandler} over an {@link IntakeCore}.
 *
 * @example
 * ```ts
 * const handler = intakeHandler(new IntakeCore({ store, secret }));
 * ```
 */
export function intakeHandler(core: IntakeCore): IntakeHandler {
  // A refused body node:http reads and drops gets as long as a stalled upload would.
  const dropWithinMs = core.pace.graceMs + core.pace.windowMs;
  const handle = async (exchange: IntakeExchange) => {
    await serve(core, exchange);
    exchange.dropRestWithin(dropWithinMs);
  };
  const handler = (request: IncomingMessage, response: ServerResponse) => {
    void handle(new IntakeExchange(request, response, intakeHeaders(request.rawHeaders), false));
  };
  const checkContinue = (request: IncomingMessage, response: ServerResponse) => {
    void handle(new IntakeExchange(request, response, intakeHeaders(request.rawHeaders), true));
  };
  return Object.assign(handler, { checkContinue });
}

async function serve(core: IntakeCore, exchange: IntakeExchange): Promise<void> {
  const { request } = exchange;
  const url = request.url ?? '/';
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  const reading = request.method === 'GET' || request.method === 'HEAD';
  if (!path.startsWith('/v1/')) {
    if (path === '/healthz' && reading) exchange.answerJson(200, { status: 'ok' });
    else exchange.answerJson(404, noRoute);
    return;
  }
  try {
    core.admit();
  } catch (error) {
    exchange.answerError(error);
    return;
  }
  try {
    const claims = core.claimsOf(exchange.headers.authorization);
    if (path === '/v1/outputs') {
      if (request.method === 'POST') return await emitRoute(core, exchange, claims);
    } else {
      const match = outputPath.exec(path);
      if (match !== null && reading) {
        const outId = decodedSegment(match[1] as string);
        if (match[2] === undefined) return await recordRoute(core.store, exchange, claims, outId);
        return await bodyRoute(core.store, exchange, claims, outId);
      }
    }
    exchange.answerJson(404, noRoute);
  } catch (error) {
    exchange.answerError(error);
  } finally {
    core.leave();
  }
}

/** A path segment percent-decoded; one that does not decode is kept as sent (and refused as no id). */
function decodedSegment(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}
