import { connect, type Socket } from 'node:net';

/**
 * An upload on a real socket that sends `head` and then whatever the test drips: `answer`
 * settles with the server's first bytes, `closed` with everything it answered once the
 * connection is closed.
 */
export interface RawUpload {
  readonly socket: Socket;
  readonly answer: Promise<string>;
  readonly closed: Promise<string>;
  /** Sends `bytes` bytes every `intervalMs` until the connection closes (or `stop`). */
  drip(bytes: number, intervalMs: number): void;
  stop(): void;
}

/** Opens a connection to the intake on loopback and sends `head` (request line, headers, any body start). */
export function rawUpload(port: number, head: string): RawUpload {
  const socket = connect(port, '127.0.0.1');
  let received = '';
  let timer: ReturnType<typeof setInterval> | undefined;
  let answered!: (text: string) => void;
  const answer = new Promise<string>((resolve) => {
    answered = resolve;
  });
  const closed = new Promise<string>((resolve) => {
    socket.on('close', () => {
      clearInterval(timer);
      answered(received);
      resolve(received);
    });
  });
  socket.on('data', (chunk) => {
    received += chunk.toString('latin1');
    answered(received);
  });
  socket.on('error', () => undefined);
  socket.write(head);
  return {
    socket,
    answer,
    closed,
    drip(bytes, intervalMs) {
      timer = setInterval(() => {
        if (socket.writable) socket.write('x'.repeat(bytes));
      }, intervalMs);
    },
    stop() {
      clearInterval(timer);
      socket.destroy();
    },
  };
}

/** The head of a raw `POST /v1/outputs` with a declared length (or chunked when `length` is undefined). */
export function postHead(token: string, key: string, length: number | undefined): string {
  const framing = length === undefined ? 'Transfer-Encoding: chunked' : `Content-Length: ${length}`;
  return (
    `POST /v1/outputs HTTP/1.1\r\nHost: intake\r\nAuthorization: Bearer ${token}\r\n` +
    `Idempotency-Key: ${key}\r\n${framing}\r\n\r\n`
  );
}
