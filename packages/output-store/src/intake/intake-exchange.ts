import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { UploadTimeoutError } from '../errors.js';
import { errorHeaders, toHttpError } from './http-error.js';
import type { IntakeHeaders } from './intake-headers.js';
import { writeJson } from './json-response.js';

/**
 * A refused request's body of at most this many bytes is still read (and dropped) by node:http,
 * so the connection stays open for the client's next request; a larger (or chunked) one gets
 * its answer with `Connection: close`.
 */
const drainableBytes = 1 << 20;

/** How long a closing connection keeps reading (and dropping) what the client still sends. */
const lingerMs = 2_000;

/**
 * One request to the intake and its answer: the headers it reads, whether the client waits for
 * `100 Continue` before sending its body, and the answering helpers every route shares.
 *
 * @example
 * ```ts
 * const exchange = new IntakeExchange(request, response, false);
 * exchange.answerJson(200, { status: 'ok' });
 * ```
 */
export class IntakeExchange {
  readonly request: IncomingMessage;
  readonly response: ServerResponse;
  readonly headers: IntakeHeaders;
  readonly #expectsContinue: boolean;
  #continued = false;

  constructor(
    request: IncomingMessage,
    response: ServerResponse,
    headers: IntakeHeaders,
    expectsContinue: boolean,
  ) {
    this.request = request;
    this.response = response;
    this.headers = headers;
    this.#expectsContinue = expectsContinue;
  }

  /**
   * Called when the request's body is about to be read: a client that sent
   * `Expect: 100-continue` is told to send it now, and only now, once every check that can
   * refuse the request before its body has passed.
   */
  readyForBody(): void {
    if (!this.#expectsContinue || this.#continued) return;
    this.#continued = true;
    this.response.writeContinue();
  }

  /** Answers with a JSON body; `headers` are added to its `Content-Type` and `Content-Length`. */
  answerJson(status: number, body: unknown, headers: readonly (readonly [string, string])[] = []): void {
    writeJson(this.response, status, JSON.stringify(body), [...headers, ...this.#closing()]);
  }

  /**
   * Answers an error with `toHttpError`'s status and body and `errorHeaders`. When the answer
   * is already on its way (a body stream failed), the connection is destroyed instead.
   */
  answerError(error: unknown): void {
    if (this.response.headersSent) {
      this.response.destroy();
      return;
    }
    const { status, body } = toHttpError(error);
    // A body cut for its pace is not worth reading any further, however small.
    const closing = this.#closing(UploadTimeoutError.isInstance(error));
    writeJson(this.response, status, JSON.stringify(body), [...errorHeaders(error, status), ...closing]);
  }

  /**
   * After the answer: a body node:http still reads and drops (a refused request's, of at most
   * 1 MiB) must arrive within `deadlineMs`, else the connection is closed. The client has its
   * answer; a client dripping the rest would otherwise hold the connection for as long as it
   * likes.
   */
  dropRestWithin(deadlineMs: number): void {
    const { request } = this;
    const socket = request.socket;
    if (request.complete || !socket || socket.destroyed) return;
    const timer = setTimeout(() => {
      if (!request.complete) socket.destroy();
    }, deadlineMs).unref();
    const done = () => clearTimeout(timer);
    request.once('end', done);
    request.once('close', done);
  }

  /**
   * `Connection: close` for an answer that leaves a body unread which is not worth reading:
   * one the client holds back for a `100 Continue` it will not get, a chunked one, or one
   * declared larger than {@link drainableBytes}. Such a connection closes gently: the answer
   * and a FIN go out, and what the client still sends is read and dropped for a while, so the
   * client reads its answer instead of a connection reset. A smaller declared body is read
   * and dropped by node:http, and the connection stays open (`force`: not even then).
   */
  #closing(force = false): [string, string][] {
    const { request } = this;
    if (request.complete) return [];
    const declared = this.headers['content-length'];
    const hasBody =
      this.headers['transfer-encoding'] !== undefined || (declared !== undefined && declared !== '0');
    if (!hasBody) return [];
    const small =
      !force && declared !== undefined && /^\d+$/.test(declared) && Number(declared) <= drainableBytes;
    if (small && !(this.#expectsContinue && !this.#continued)) return [];
    if (request.socket) lingerOnClose(request.socket);
    return [['Connection', 'close']];
  }
}

/**
 * Makes node:http's close of this connection (after an answer with `Connection: close`) a
 * lingering one: half-close, then keep reading and dropping the client's bytes until it closes
 * its side or {@link lingerMs} pass. Closing at once while the client is still sending makes
 * the kernel answer its bytes with a reset, which can destroy the answer before the client
 * reads it.
 */
function lingerOnClose(socket: Socket): void {
  const lingering = socket as Socket & { destroySoon?: () => void };
  lingering.destroySoon = () => {
    if (socket.writable) socket.end();
    const timer = setTimeout(() => socket.destroy(), lingerMs);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
    socket.once('end', () => socket.destroy());
    socket.resume();
  };
}
