import type { Logger } from '@temporalio/common';
import { InvalidCodecOptionError } from '../errors.js';
import type { KeyRing } from '../key-ring.js';
import type { CodecAuthOptions } from './authenticator.js';
import type { OwnerRule, ReferenceResolver } from './decode-payload.js';
import { defaultDisplayLimitBytes } from './display-cut.js';

/**
 * What the codec server logs through: `info` for each answered request (who, which namespace,
 * per payload its key ids, reference ids and outcome), `warn` for refused ones. Never payload
 * contents or keys. Temporal's `Logger` (and pino's child loggers behind one) fit.
 *
 * @example
 * ```ts
 * const logger: CodecServerLogger = { info: (message, meta) => console.log(message, meta), warn: console.warn };
 * ```
 */
export type CodecServerLogger = Pick<Logger, 'info' | 'warn'>;

/**
 * Options of `createCodecHandler` and `startCodecServer`.
 *
 * @example
 * ```ts
 * const options: CodecHandlerOptions = { keyRing, allowedOrigins: ['http://localhost:8233'] };
 * ```
 */
export interface CodecHandlerOptions {
  /** Decrypts payloads (any of its keys) and encrypts them (its active key). */
  keyRing: KeyRing;
  /** The owner whose External Storage references this server resolves; no other owner's. */
  ownerId?: string;
  /** Reads a reference's payload from the data plane (needs `ownerId`). Without it references are shown as they are. */
  resolveReference?: ReferenceResolver;
  /** Whether a reference stored for one owner may be read by the served owner. Default: the same owner only. */
  ownerRule?: OwnerRule;
  /** Bearer token and/or OIDC issuer. Without any, the server binds to loopback only. */
  auth?: CodecAuthOptions;
  /** Web UI origins allowed to call from a browser (CORS). Default none. */
  allowedOrigins?: readonly string[];
  /** A decoded payload's data over this many bytes is cut for display. Default 256 KiB. */
  displayLimitBytes?: number;
  /** Largest request body (413 beyond). Default 4 MiB. */
  maxRequestBytes?: number;
  /** Most payloads in one request (413 beyond). Default 1,000. */
  maxPayloads?: number;
  /** Bytes of decoded data one answer carries at most; later payloads are cut harder. Default 16 MiB. */
  maxResponseBytes?: number;
  /** Requests served at once (503 with `Retry-After: 1` beyond). Default 8. */
  maxConcurrentRequests?: number;
  /** Deadline of one request, body to answer (503 beyond). Default 30 s. */
  requestTimeoutMs?: number;
  /** Where the server says who decoded what. Default: nowhere. */
  logger?: CodecServerLogger;
}

/** {@link CodecHandlerOptions} with every default filled in. */
export interface ResolvedCodecOptions {
  keyRing: KeyRing;
  ownerId: string | undefined;
  resolveReference: ReferenceResolver | undefined;
  ownerRule: OwnerRule;
  auth: CodecAuthOptions | undefined;
  allowedOrigins: readonly string[];
  displayLimitBytes: number;
  maxRequestBytes: number;
  maxPayloads: number;
  maxResponseBytes: number;
  maxConcurrentRequests: number;
  requestTimeoutMs: number;
  logger: CodecServerLogger;
}

const quiet: CodecServerLogger = { info() {}, warn() {} };

/**
 * Fills in the defaults and checks the options; throws {@link InvalidCodecOptionError}.
 *
 * @example
 * ```ts
 * const resolved = resolveCodecOptions({ keyRing });
 * resolved.maxRequestBytes; // 4194304
 * ```
 */
export function resolveCodecOptions(options: CodecHandlerOptions): ResolvedCodecOptions {
  const resolved: ResolvedCodecOptions = {
    keyRing: options.keyRing,
    ownerId: options.ownerId,
    resolveReference: options.resolveReference,
    ownerRule: options.ownerRule ?? ((referenceOwner, servedOwner) => referenceOwner === servedOwner),
    auth: options.auth,
    allowedOrigins: options.allowedOrigins ?? [],
    displayLimitBytes: options.displayLimitBytes ?? defaultDisplayLimitBytes,
    maxRequestBytes: options.maxRequestBytes ?? 4 * 1024 * 1024,
    maxPayloads: options.maxPayloads ?? 1000,
    maxResponseBytes: options.maxResponseBytes ?? 16 * 1024 * 1024,
    maxConcurrentRequests: options.maxConcurrentRequests ?? 8,
    requestTimeoutMs: options.requestTimeoutMs ?? 30_000,
    logger: options.logger ?? quiet,
  };
  for (const name of [
    'displayLimitBytes',
    'maxRequestBytes',
    'maxPayloads',
    'maxResponseBytes',
    'maxConcurrentRequests',
    'requestTimeoutMs',
  ] as const)
    if (!Number.isSafeInteger(resolved[name]) || resolved[name] <= 0)
      throw new InvalidCodecOptionError(name, 'must be a positive integer');
  if (resolved.resolveReference !== undefined && resolved.ownerId === undefined)
    throw new InvalidCodecOptionError(
      'ownerId',
      'is required with resolveReference: it names the owner served',
    );
  if (resolved.auth?.bearerToken !== undefined && resolved.auth.bearerToken.length < 16)
    throw new InvalidCodecOptionError('auth.bearerToken', 'must be at least 16 characters');
  for (const origin of resolved.allowedOrigins)
    if (origin === '*' || !/^https?:\/\/[^/]+$/.test(origin))
      throw new InvalidCodecOptionError(
        'allowedOrigins',
        `has "${origin}"; give scheme://host[:port] origins, no "*"`,
      );
  return resolved;
}

/**
 * Whether the options configure any authentication.
 *
 * @example
 * ```ts
 * if (!isAuthenticated(options) && !isLoopbackHost(host)) throw new UnsafeBindError(host);
 * ```
 */
export function isAuthenticated(options: { auth?: CodecAuthOptions | undefined }): boolean {
  return options.auth?.bearerToken !== undefined || options.auth?.oidc !== undefined;
}

/**
 * Whether a host name or address is loopback (`localhost`, `127.0.0.0/8`, `::1`), with or
 * without a `:port` or brackets.
 *
 * @example
 * ```ts
 * isLoopbackHost('127.0.0.1:7243'); // true
 * isLoopbackHost('0.0.0.0'); // false
 * ```
 */
export function isLoopbackHost(host: string): boolean {
  const name = host.startsWith('[')
    ? host.slice(1, host.indexOf(']'))
    : host.split(':').length === 2
      ? (host.split(':')[0] as string)
      : host;
  return name === 'localhost' || name === '::1' || /^127(\.\d{1,3}){3}$/.test(name);
}
