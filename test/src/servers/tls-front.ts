import { readFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { createServer, type TLSSocket } from 'node:tls';
import type { TestCertificates } from './test-ca.js';

/** A TLS front started by {@link startTlsFront}. */
export interface TlsFront {
  /** `127.0.0.1:<port>`: what clients connect to, with TLS. */
  address: string;
  /** Connections whose handshake succeeded, with the client certificate's subject (if any) and ALPN. */
  readonly accepted: { client: string | undefined; alpn: string | false | null }[];
  /** Handshakes refused (no client certificate, an unknown CA, plain text). */
  readonly refused: string[];
  stop(): Promise<void>;
}

/**
 * A TLS front for a server that speaks only plain text (the Temporal dev server): it ends TLS
 * with the test CA's server certificate, offering ALPN `h2`, and forwards the bytes of each
 * connection to `upstream`. With `requireClientCertificate`, a client must present a
 * certificate from the test CA (mTLS).
 *
 * @example
 * ```ts
 * const front = await startTlsFront({ upstream: '127.0.0.1:7233', certificates, requireClientCertificate: true });
 * ```
 */
export async function startTlsFront(options: {
  upstream: string;
  certificates: TestCertificates;
  requireClientCertificate: boolean;
}): Promise<TlsFront> {
  const { certificates } = options;
  const [host, port] = splitAddress(options.upstream);
  const accepted: TlsFront['accepted'] = [];
  const refused: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer(
    {
      key: await readFile(certificates.serverKey),
      cert: await readFile(certificates.serverCert),
      ca: [await readFile(certificates.caCert)],
      requestCert: options.requireClientCertificate,
      rejectUnauthorized: options.requireClientCertificate,
      ALPNProtocols: ['h2'],
    },
    (secure: TLSSocket) => {
      const subject = secure.getPeerCertificate()?.subject?.CN;
      accepted.push({ client: typeof subject === 'string' ? subject : undefined, alpn: secure.alpnProtocol });
      const plain = connect(port, host);
      for (const socket of [secure, plain]) {
        sockets.add(socket);
        socket.on('close', () => sockets.delete(socket));
        socket.on('error', () => {
          secure.destroy();
          plain.destroy();
        });
      }
      secure.pipe(plain).pipe(secure);
    },
  );
  server.on('tlsClientError', (error) => refused.push(error.message));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('the TLS front has no port');
  return {
    address: `127.0.0.1:${address.port}`,
    accepted,
    refused,
    async stop() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** `host:port` → `[host, port]`. */
export function splitAddress(address: string): [string, number] {
  const colon = address.lastIndexOf(':');
  return [address.slice(0, colon), Number(address.slice(colon + 1))];
}
