import { type ConnectionProblem, StoreConnectionError } from '../errors.js';

const unreachableCodes = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
  'EPIPE',
]);

/**
 * Where a PostgreSQL connection string points, fit to print: `postgres://user@host:port/db`,
 * without a password (nor `password=` in the query).
 *
 * @example
 * ```ts
 * postgresServer('postgres://wharf:secret@db:5432/wharf'); // 'PostgreSQL server postgres://wharf@db:5432/wharf'
 * ```
 */
export function postgresServer(connectionString: string | undefined): string {
  if (connectionString === undefined) return 'the PostgreSQL server of the given pool';
  try {
    const url = new URL(connectionString);
    url.password = '';
    for (const name of [...url.searchParams.keys()])
      if (/password|secret|token/i.test(name)) url.searchParams.delete(name);
    return `PostgreSQL server ${url.toString()}`;
  } catch {
    return 'the PostgreSQL server (its URL does not parse)';
  }
}

function problemOf(error: unknown): ConnectionProblem | undefined {
  const { code, message } = (typeof error === 'object' && error !== null ? error : {}) as {
    code?: unknown;
    message?: unknown;
  };
  if (typeof code === 'string') {
    if (unreachableCodes.has(code)) return 'unreachable';
    // invalid_password, invalid_authorization_specification (no such role, pg_hba refusal)
    if (code === '28P01' || code === '28000') return 'credentials';
    // invalid_catalog_name: the database does not exist
    if (code === '3D000') return 'missing';
    // too_many_connections, cannot_connect_now, admin_shutdown…
    if (code === '53300' || code.startsWith('57P')) return 'refused';
    // Any other SQLSTATE is the server answering (a statement timeout, 57014, included).
    if (/^[0-9A-Z]{5}$/.test(code)) return undefined;
  }
  if (typeof message === 'string' && /timeout|terminated unexpectedly|Connection terminated/i.test(message))
    return 'unreachable';
  return undefined;
}

/**
 * A typed {@link StoreConnectionError} for an error of `pg` while connecting or on a connection
 * that broke (a server that stopped, a cut network), naming the server (never the password),
 * what went wrong and, given `doing`, what it was doing; `undefined` for an error that is not
 * about the connection.
 *
 * @example
 * ```ts
 * throw connectionFailure(error, connectionString) ?? error;
 * ```
 */
export function connectionFailure(
  error: unknown,
  connectionString: string | undefined,
  doing?: string,
): StoreConnectionError | undefined {
  const problem = problemOf(error);
  if (problem === undefined) return undefined;
  const server = postgresServer(connectionString);
  const text = error instanceof Error ? error.message : String(error);
  const detail =
    problem === 'unreachable'
      ? `no server answers (${text})`
      : problem === 'credentials'
        ? `the server refused the credentials (${text})`
        : problem === 'missing'
          ? text
          : `the server refused the connection (${text})`;
  return new StoreConnectionError(server, problem, doing === undefined ? detail : `${detail} — ${doing}`, {
    cause: error,
  });
}
