import { InvalidStoreUrlError } from './config-errors.js';
import { decodeAbsolutePath } from './url-path.js';

/**
 * Where the output records live: a SQLite file or a PostgreSQL database.
 *
 * @example
 * ```ts
 * const store: StoreConfig = { kind: 'sqlite', path: '.wharf/outputs.db' };
 * ```
 */
export type StoreConfig =
  | { readonly kind: 'sqlite'; readonly path: string }
  | { readonly kind: 'postgres'; readonly url: string };

const schemePattern = /^([a-zA-Z][a-zA-Z0-9+.-]+):/;

/**
 * Parses a store URL (`WHARF_STORE`): `postgres://user:pass@host:5432/db` (or
 * `postgresql://`), `sqlite:///absolute/path.db`, or a plain file path (a SQLite file,
 * relative paths allowed). Anything else is an {@link InvalidStoreUrlError} naming the bad part.
 *
 * @example
 * ```ts
 * parseStoreUrl('sqlite:///var/wharf/outputs.db'); // { kind: 'sqlite', path: '/var/wharf/outputs.db' }
 * parseStoreUrl('postgres://wharf@db/wharf');      // { kind: 'postgres', url: 'postgres://wharf@db/wharf' }
 * ```
 */
export function parseStoreUrl(value: string, variable = 'WHARF_STORE'): StoreConfig {
  if (value.trim() === '') throw new InvalidStoreUrlError(variable, 'value', 'is empty');
  if (value.includes('\0')) throw new InvalidStoreUrlError(variable, 'value', 'must not contain NUL');
  const scheme = schemePattern.exec(value)?.[1]?.toLowerCase();
  if (scheme === undefined) return { kind: 'sqlite', path: value };
  if (scheme === 'postgres' || scheme === 'postgresql') return parsePostgres(value, variable);
  if (scheme === 'sqlite') return parseSqlite(value, variable);
  throw new InvalidStoreUrlError(
    variable,
    'scheme',
    `"${scheme}:" is not supported; use postgres://, sqlite:///path or a file path`,
  );
}

function parsePostgres(value: string, variable: string): StoreConfig {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidStoreUrlError(variable, 'url', 'is not a valid postgres:// URL');
  }
  if (url.hostname === '' && !url.searchParams.has('host'))
    throw new InvalidStoreUrlError(
      variable,
      'host',
      'is missing (postgres://user@host/db, or ?host=/socket/dir)',
    );
  if (url.port !== '' && Number(url.port) === 0)
    throw new InvalidStoreUrlError(variable, 'port', 'must be 1-65535');
  const database = url.pathname.replace(/^\//, '');
  if (database.includes('/'))
    throw new InvalidStoreUrlError(variable, 'database', 'must be a single path segment');
  return { kind: 'postgres', url: value };
}

function parseSqlite(value: string, variable: string): StoreConfig {
  const rest = value.slice('sqlite:'.length);
  if (rest.includes('?') || rest.includes('#'))
    throw new InvalidStoreUrlError(variable, 'path', 'must not have a query or fragment');
  if (!rest.startsWith('//'))
    throw new InvalidStoreUrlError(variable, 'path', 'must be written sqlite:///absolute/path');
  const afterSlashes = rest.slice(2);
  const slash = afterSlashes.indexOf('/');
  const host = slash === -1 ? afterSlashes : afterSlashes.slice(0, slash);
  if (host !== '' && host !== 'localhost')
    throw new InvalidStoreUrlError(
      variable,
      'host',
      `"${host}" is not allowed; a SQLite file is local (sqlite:///path)`,
    );
  const decoded = decodeAbsolutePath(slash === -1 ? '' : afterSlashes.slice(slash));
  if ('reason' in decoded) throw new InvalidStoreUrlError(variable, 'path', decoded.reason);
  if (decoded.path === '/') throw new InvalidStoreUrlError(variable, 'path', 'must name a file');
  return { kind: 'sqlite', path: decoded.path };
}
