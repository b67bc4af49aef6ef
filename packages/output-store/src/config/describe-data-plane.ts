import type { BlobsConfig } from './parse-blobs-url.js';
import type { StoreConfig } from './parse-store-url.js';

/**
 * Where a store lives, fit to print or log: the SQLite file's path, or the PostgreSQL URL with
 * its password (and any `password=` / `sslpassword=` query parameter) removed.
 *
 * @example
 * ```ts
 * describeStore({ kind: 'postgres', url: 'postgres://wharf:secret@db:5432/wharf' });
 * // 'postgres://wharf@db:5432/wharf'
 * ```
 */
export function describeStore(config: StoreConfig): string {
  if (config.kind === 'sqlite') return config.path;
  let url: URL;
  try {
    url = new URL(config.url);
  } catch {
    return 'postgres://(unparsable URL)';
  }
  url.password = '';
  // The parameters a child's environment treats as secrets too (`password`, `sslkey`, `token`…).
  for (const name of [...url.searchParams.keys()])
    if (/pass|secret|key|token/i.test(name)) url.searchParams.delete(name);
  return url.toString();
}

/**
 * Where large bodies live, fit to print or log: a directory, `s3://bucket/prefix` with its
 * endpoint and region when set (credentials are never part of a blobs URL), or, without a
 * blobs setting, the SQLite store's own body directory beside its file.
 *
 * @example
 * ```ts
 * describeBlobs({ kind: 's3', bucket: 'wharf', prefix: 'outputs', region: 'eu-west-1' }, store);
 * // 's3://wharf/outputs (region eu-west-1)'
 * ```
 */
export function describeBlobs(config: BlobsConfig | undefined, store: StoreConfig): string {
  if (config === undefined)
    return store.kind === 'sqlite' ? `${store.path}.blobs` : '(none: bodies stay in the database)';
  if (config.kind === 'file') return config.directory;
  const settings = [
    ...(config.endpoint === undefined ? [] : [`endpoint ${config.endpoint}`]),
    ...(config.region === undefined ? [] : [`region ${config.region}`]),
  ];
  const location = `s3://${config.bucket}${config.prefix === '' ? '' : `/${config.prefix}`}`;
  return settings.length === 0 ? location : `${location} (${settings.join(', ')})`;
}
