import { createHash } from 'node:crypto';
import { realpath } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { BlobsConfig, StoreConfig } from '@wharf/output-store/config';
import type { DataPlaneIdentity } from '@wharf/swarm';

/** Where a data plane is: its store and body settings, and their printable description. */
export interface DataPlaneLocation {
  storeConfig: StoreConfig;
  blobsConfig: BlobsConfig | undefined;
  /** As `resolveDataPlane` describes them, without passwords. */
  location: { store: string; blobs: string };
}

/**
 * The identity of a data plane: a fingerprint of where its records and bodies live, with no
 * credential in it — a SQLite file by its real path (symbolic links resolved); a PostgreSQL
 * database by host, port and name (not user or password); bodies by directory, or by S3
 * endpoint, bucket and prefix. Every process that opens the same store with the same URLs gets
 * the same `id`; two data directories of their own get two. A store reached under two host
 * names (`db` inside a cluster, `127.0.0.1` outside) counts as two: give every worker and client
 * of one data plane the same URLs.
 *
 * @example
 * ```ts
 * const data = await openDataDir('.wharf');
 * const identity = await dataPlaneIdentity(data); // { id: 'dp_3f1c…', description: 'store /srv/.wharf/outputs.db' }
 * ```
 */
export async function dataPlaneIdentity(plane: DataPlaneLocation): Promise<DataPlaneIdentity> {
  const { storeConfig, blobsConfig } = plane;
  const fingerprint = {
    store:
      storeConfig.kind === 'sqlite'
        ? { sqlite: await realFilePath(storeConfig.path) }
        : { postgres: postgresLocation(storeConfig.url) },
    blobs:
      blobsConfig === undefined
        ? null
        : blobsConfig.kind === 'file'
          ? { file: await realFilePath(blobsConfig.directory) }
          : {
              s3: {
                endpoint: blobsConfig.endpoint === undefined ? null : new URL(blobsConfig.endpoint).origin,
                bucket: blobsConfig.bucket,
                prefix: blobsConfig.prefix.replace(/^\/+|\/+$/g, ''),
              },
            },
  };
  const digest = createHash('sha256').update(JSON.stringify(fingerprint)).digest('hex');
  return {
    id: `dp_${digest.slice(0, 16)}`,
    description: `store ${plane.location.store}${blobsConfig === undefined ? '' : `, blobs ${plane.location.blobs}`}`,
  };
}

/** The real path of a file or directory; of its parent when it does not exist yet. */
async function realFilePath(path: string): Promise<string> {
  const absolute = resolve(path);
  try {
    return await realpath(absolute);
  } catch {
    try {
      return join(await realpath(dirname(absolute)), basename(absolute));
    } catch {
      return absolute;
    }
  }
}

/** Host, port and database of a PostgreSQL URL: what names the database, nothing that opens it. */
function postgresLocation(text: string): { host: string; port: string; database: string } {
  const url = new URL(text);
  const host = url.hostname.toLowerCase() || (url.searchParams.get('host') ?? '');
  const port = url.port || url.searchParams.get('port') || '5432';
  const database = decodeURIComponent(url.pathname.replace(/^\//, '')) || decodeURIComponent(url.username);
  return { host, port, database };
}
