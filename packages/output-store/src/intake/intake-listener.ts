import type { IncomingMessage, ServerResponse } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { emitFastPath } from './emit-fast-path.js';
import { intakeApp } from './intake-app.js';
import type { IntakeCore } from './intake-core.js';

/**
 * Which layer answered a request: node:http's EMIT fast path or the Hono app.
 *
 * @example
 * ```ts
 * const served: IntakeLayer[] = [];
 * ```
 */
export type IntakeLayer = 'fast-path' | 'hono';

/**
 * Options of {@link intakeListener}.
 *
 * @example
 * ```ts
 * const options: IntakeListenerOptions = { hostname: '127.0.0.1' };
 * ```
 */
export interface IntakeListenerOptions {
  /** The Host the Hono adapter assumes for a request without one (the listening address). */
  readonly hostname: string;
  /** Told which layer took each request (tests and metrics). */
  readonly onServed?: (layer: IntakeLayer) => void;
}

/**
 * The node:http request listener of an intake: the EMIT fast path first, and the Hono app
 * (through `@hono/node-server`) for every request the fast path declines. Both run over the one
 * {@link IntakeCore}.
 *
 * @example
 * ```ts
 * const server = createServer(intakeListener(new IntakeCore({ store, secret }), { hostname: '127.0.0.1' }));
 * ```
 */
export function intakeListener(
  core: IntakeCore,
  options: IntakeListenerOptions,
): (request: IncomingMessage, response: ServerResponse) => void {
  const fastPath = emitFastPath(core);
  const hono = getRequestListener(intakeApp(core).fetch, { hostname: options.hostname });
  const { onServed } = options;
  return (request, response) => {
    if (fastPath(request, response)) {
      onServed?.('fast-path');
      return;
    }
    onServed?.('hono');
    void hono(request, response);
  };
}
