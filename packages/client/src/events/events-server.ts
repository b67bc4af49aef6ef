import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WorkflowNotFoundError } from '@temporalio/client';
import { type CodecAuthOptions, createAuthenticator, isLoopbackHost } from '@wharf/codec/server';
import { WharfOrchestratorError } from '@wharf/swarm';
import type { WharfClient } from '../client/wharf-client.js';

/** Options of {@link startEventsServer}. */
export interface EventsServerOptions {
  /** The client whose runs it serves. */
  wharf: Pick<WharfClient, 'events' | 'client'>;
  /** Address to bind. Default `127.0.0.1`; anything but loopback needs `auth`. */
  host?: string;
  /** Port; default 0 (any free port). */
  port?: number;
  /** A bearer token and/or an OIDC issuer, as the codec server takes them. Without any: loopback only. */
  auth?: CodecAuthOptions;
  /** Browser origins allowed to read the streams (CORS). Default none. */
  allowedOrigins?: readonly string[];
  /** How often an idle stream gets a comment line, so proxies keep it open. Default 15 s. */
  keepAliveMs?: number;
}

/** A running events server. */
export interface EventsServer {
  /** Base URL: `GET <url>/runs/<workflow id>/events`. */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * Serves swarm runs' event streams (`WharfClient.events`) over HTTP as Server-Sent Events:
 * `GET /runs/:workflowId/events` (the id URL-encoded) streams `id: <seq>`, `event: <type>`,
 * `data: <the event as JSON>` until the run ends (then an `event: end`), and resumes after the
 * `Last-Event-ID` header (what a browser's `EventSource` sends on reconnecting) or an `?after=`
 * query parameter. Authentication is the codec server's: a bearer token or an OIDC issuer
 * (`Authorization: Bearer …`); without either it binds loopback only (a `WharfOrchestratorError`
 * `INVALID_CONFIG` otherwise). An unknown run is a 404, a bad `after` a 400.
 *
 * @example
 * ```ts
 * const server = await startEventsServer({ wharf, port: 8090 });
 * // curl -N http://127.0.0.1:8090/runs/etl-2026/events -H 'Last-Event-ID: 12'
 * await server.close();
 * ```
 */
export async function startEventsServer(options: EventsServerOptions): Promise<EventsServer> {
  const host = options.host ?? '127.0.0.1';
  const authenticated = options.auth?.bearerToken !== undefined || options.auth?.oidc !== undefined;
  if (!authenticated && !isLoopbackHost(host))
    throw new WharfOrchestratorError(
      'INVALID_CONFIG',
      `the events server would serve every run to anyone who reaches ${host}: give it a bearer token or an OIDC issuer, or bind to loopback`,
    );
  if (options.auth?.bearerToken !== undefined && options.auth.bearerToken.length < 16)
    throw new WharfOrchestratorError(
      'INVALID_CONFIG',
      'the events server bearer token must be at least 16 characters',
    );
  const authenticate = createAuthenticator(options.auth);
  const streams = new Set<AbortController>();
  const server = createServer((request, response) => {
    void handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) reply(response, 500, String((error as Error)?.message ?? error));
      else response.end();
    });
  });
  server.headersTimeout = 10_000;

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const origin = request.headers.origin;
    if (origin !== undefined && (options.allowedOrigins ?? []).includes(origin)) {
      response.setHeader('Access-Control-Allow-Origin', origin);
      response.setHeader('Vary', 'Origin');
      response.setHeader('Access-Control-Allow-Headers', 'Authorization, Last-Event-ID');
    }
    if (request.method === 'OPTIONS') return reply(response, 204, '');
    const url = new URL(request.url ?? '/', 'http://events');
    const match = /^\/runs\/([^/]+)\/events$/.exec(url.pathname);
    if (request.method !== 'GET' || match?.[1] === undefined)
      return reply(response, 404, 'not found: GET /runs/<workflow id>/events');
    const who = await authenticate(request.headers.authorization);
    if (!who.ok) return reply(response, 401, who.reason);
    const workflowId = decodeURIComponent(match[1]);
    const resumeFrom = request.headers['last-event-id'] ?? url.searchParams.get('after') ?? '0';
    const after = Number(Array.isArray(resumeFrom) ? resumeFrom[0] : resumeFrom);
    if (!Number.isSafeInteger(after) || after < 0)
      return reply(response, 400, 'Last-Event-ID (or after) must be a sequence number');
    try {
      await options.wharf.client.workflow.getHandle(workflowId).describe();
    } catch (error) {
      if (error instanceof WorkflowNotFoundError) return reply(response, 404, `no run ${workflowId}`);
      throw error;
    }
    const stop = new AbortController();
    streams.add(stop);
    request.on('close', () => stop.abort());
    response.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-cache',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    response.write(': wharf.events/v1\n\n');
    const keepAlive = setInterval(() => response.write(': keep-alive\n\n'), options.keepAliveMs ?? 15_000);
    try {
      for await (const event of options.wharf.events(workflowId, { after, signal: stop.signal }))
        response.write(`id: ${event.seq}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
      if (!stop.signal.aborted) response.write('event: end\ndata: {}\n\n');
    } catch (error) {
      if (!stop.signal.aborted)
        response.write(`event: error\ndata: ${JSON.stringify({ message: (error as Error).message })}\n\n`);
    } finally {
      clearInterval(keepAlive);
      streams.delete(stop);
      response.end();
    }
  }

  await listen(server, host, options.port ?? 0);
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        for (const stream of streams) stream.abort();
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}

function reply(response: ServerResponse, status: number, text: string): void {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
  response.end(text === '' ? undefined : `${text}\n`);
}

function listen(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
