import { readFile } from 'node:fs/promises';
import {
  type ClientHttp2Session,
  connect,
  constants,
  createSecureServer,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from 'node:http2';
import type { TestCertificates } from './test-ca.js';

/** One gRPC call the front saw. */
export interface RecordedCall {
  /** `/temporal.api.workflowservice.v1.WorkflowService/StartWorkflowExecution`, … */
  path: string;
  authorization: string | undefined;
  userAgent: string | undefined;
}

/** A recording gRPC front started by {@link startGrpcFront}. */
export interface GrpcFront {
  /** `127.0.0.1:<port>`: HTTP/2 over TLS only. */
  address: string;
  readonly calls: RecordedCall[];
  stop(): Promise<void>;
}

const pseudoHeaders = new Set([':method', ':path', ':scheme', ':authority', ':status']);

/** The headers of an incoming message without HTTP/2 pseudo-headers. */
function plainHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !pseudoHeaders.has(name)));
}

/**
 * A gRPC front that records what each call carries (path, `authorization`, `user-agent`) and
 * proxies it to `upstream` (a plain-text HTTP/2 server: the Temporal dev server): an HTTP/2
 * server over TLS only (the test CA's server certificate), forwarding headers, body, response
 * headers and trailers of every stream.
 *
 * @example
 * ```ts
 * const front = await startGrpcFront({ upstream: '127.0.0.1:7233', certificates });
 * // … connect with TEMPORAL_API_KEY, then:
 * expect(front.calls.every((call) => call.authorization === 'Bearer key')).toBe(true);
 * ```
 */
export async function startGrpcFront(options: {
  upstream: string;
  certificates: TestCertificates;
}): Promise<GrpcFront> {
  const calls: RecordedCall[] = [];
  let upstream: ClientHttp2Session | undefined;
  const session = () => {
    if (upstream === undefined || upstream.closed || upstream.destroyed) {
      upstream = connect(`http://${options.upstream}`);
      upstream.on('error', () => {});
    }
    return upstream;
  };
  const streams = new Set<ServerHttp2Stream>();
  const server = createSecureServer({
    key: await readFile(options.certificates.serverKey),
    cert: await readFile(options.certificates.serverCert),
    allowHTTP1: false,
  });
  const sessions = new Set<ServerHttp2Session>();
  server.on('session', (client) => {
    sessions.add(client);
    client.on('close', () => sessions.delete(client));
  });
  server.on('stream', (stream, headers) => {
    streams.add(stream);
    stream.on('close', () => streams.delete(stream));
    const path = String(headers[':path']);
    calls.push({
      path,
      authorization: headers.authorization,
      userAgent: headers['user-agent'],
    });
    const request = session().request({ ':method': 'POST', ':path': path, ...plainHeaders(headers) });
    let trailers: OutgoingHttpHeaders = {};
    request.on('response', (response) => {
      const reply = { ':status': response[':status'], ...plainHeaders(response) };
      if (request.endAfterHeaders) {
        // A trailers-only response (an error status): its headers are all there is.
        stream.respond(reply, { endStream: true });
        return;
      }
      stream.respond(reply, { waitForTrailers: true });
      request.pipe(stream);
    });
    request.on('trailers', (received) => {
      trailers = plainHeaders(received);
    });
    stream.on('wantTrailers', () => stream.sendTrailers(trailers));
    request.on('error', () => stream.close(constants.NGHTTP2_INTERNAL_ERROR));
    stream.on('close', () => {
      if (!request.closed) request.close(constants.NGHTTP2_CANCEL);
    });
    stream.on('error', () => {});
    stream.pipe(request);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the gRPC front has no port');
  return {
    address: `127.0.0.1:${address.port}`,
    calls,
    async stop() {
      for (const stream of streams) stream.close(constants.NGHTTP2_CANCEL);
      for (const client of sessions) client.destroy();
      upstream?.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
