import type { BlobStore } from '../blobs/blob-store.js';
import { LocalBlobStore } from '../blobs/local-blob-store.js';
import type { PostgresOutputStoreOptions } from '../postgres/postgres-output-store.js';
import type { S3BlobStoreOptions } from '../s3/s3-blob-store.js';
import { SqliteOutputStore, type SqliteOutputStoreOptions } from '../sqlite/sqlite-output-store.js';
import type { OutputStore } from '../types.js';
import { InvalidStoreUrlError } from './config-errors.js';
import { importBackend } from './import-backend.js';
import { type BlobsConfig, parseBlobsUrl } from './parse-blobs-url.js';
import { parseStoreUrl, type StoreConfig } from './parse-store-url.js';
import { type DataPlaneEnv, dataPlaneEnvSchema } from './schemas.js';

/**
 * Options of {@link openDataPlane}. Each URL falls back to its environment variable.
 *
 * @example
 * ```ts
 * const options: OpenDataPlaneOptions = { store: 'sqlite:///var/wharf/outputs.db', blobs: 's3://wharf/outputs' };
 * ```
 */
export interface OpenDataPlaneOptions {
  /** Store URL (see `parseStoreUrl`); default `WHARF_STORE`, else `.wharf/outputs.db`. */
  readonly store?: string;
  /** Blobs URL (see `parseBlobsUrl`); default `WHARF_BLOBS`, else the store's own default. */
  readonly blobs?: string;
  /** Where `WHARF_*` and `AWS_*` variables are read; default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Further options of a SQLite store (inline threshold, allowed roots…). */
  readonly sqlite?: Omit<SqliteOutputStoreOptions, 'path' | 'blobDir' | 'blobs'>;
  /** Further options of a PostgreSQL store (schema, pool size, inline threshold…). */
  readonly postgres?: Omit<PostgresOutputStoreOptions, 'connectionString' | 'pool' | 'blobs'>;
}

/**
 * An opened output store and where its large bodies go.
 *
 * @example
 * ```ts
 * const plane: DataPlane = await openDataPlane();
 * console.log(plane.storeConfig.kind, plane.blobsConfig?.kind ?? 'default');
 * await plane.close();
 * ```
 */
export interface DataPlane {
  readonly store: OutputStore;
  readonly storeConfig: StoreConfig;
  /** Undefined when the store keeps its default (a SQLite store: `<path>.blobs/`). */
  readonly blobsConfig: BlobsConfig | undefined;
  /** The blob store the store keeps large bodies in, when it is one (`file://` with PostgreSQL, `s3://`). */
  readonly blobs: BlobStore | undefined;
  /** Closes the store and its blob store. */
  close(): Promise<void>;
}

function envValue(env: DataPlaneEnv, name: keyof DataPlaneEnv): string | undefined {
  const value = env[name];
  return value === undefined || value === '' ? undefined : value;
}

/**
 * S3 options from a parsed `s3://` URL and the standard AWS variables: URL settings win over
 * `AWS_REGION`/`AWS_DEFAULT_REGION` and `AWS_ENDPOINT_URL_S3`/`AWS_ENDPOINT_URL`; a custom
 * endpoint implies path-style requests unless the URL says otherwise; credentials only as a
 * complete pair (else the SDK's provider chain).
 *
 * @example
 * ```ts
 * const options = s3OptionsFrom(parsed, { AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'k', AWS_SECRET_ACCESS_KEY: 's' });
 * ```
 */
export function s3OptionsFrom(
  config: Extract<BlobsConfig, { kind: 's3' }>,
  env: DataPlaneEnv,
): S3BlobStoreOptions {
  const accessKeyId = envValue(env, 'AWS_ACCESS_KEY_ID');
  const secretAccessKey = envValue(env, 'AWS_SECRET_ACCESS_KEY');
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined))
    throw new InvalidStoreUrlError(
      accessKeyId === undefined ? 'AWS_ACCESS_KEY_ID' : 'AWS_SECRET_ACCESS_KEY',
      'value',
      'is missing while its pair is set',
    );
  const sessionToken = envValue(env, 'AWS_SESSION_TOKEN');
  const endpoint =
    config.endpoint ?? envValue(env, 'AWS_ENDPOINT_URL_S3') ?? envValue(env, 'AWS_ENDPOINT_URL');
  const region =
    config.region ?? envValue(env, 'AWS_REGION') ?? envValue(env, 'AWS_DEFAULT_REGION') ?? 'us-east-1';
  return {
    bucket: config.bucket,
    prefix: config.prefix,
    region,
    ...(endpoint === undefined ? {} : { endpoint }),
    // Self-hosted servers (MinIO, versitygw) want path-style requests; AWS takes either.
    ...(config.forcePathStyle !== undefined || endpoint !== undefined
      ? { forcePathStyle: config.forcePathStyle ?? true }
      : {}),
    ...(accessKeyId === undefined || secretAccessKey === undefined
      ? {}
      : {
          credentials: {
            accessKeyId,
            secretAccessKey,
            ...(sessionToken === undefined ? {} : { sessionToken }),
          },
        }),
    ...(config.partSizeBytes === undefined ? {} : { partSizeBytes: config.partSizeBytes }),
    ...(config.queueSize === undefined ? {} : { queueSize: config.queueSize }),
  };
}

async function openBlobStore(config: BlobsConfig, env: DataPlaneEnv): Promise<BlobStore> {
  if (config.kind === 's3') {
    const { S3BlobStore } = await importBackend(
      () => import('../s3/s3-blob-store.js'),
      ['@aws-sdk/client-s3', '@aws-sdk/lib-storage'],
      's3://',
      'WHARF_BLOBS',
    );
    return new S3BlobStore(s3OptionsFrom(config, env));
  }
  return new LocalBlobStore({ root: config.directory });
}

/**
 * Opens the output store and blob store the configuration names, in one place: a SQLite file
 * (its bodies beside it, in a `file://` directory or in an `s3://` bucket) or PostgreSQL (with
 * a `file://` or `s3://` blob store). Backends with optional packages load only when named,
 * and a missing one is a {@link BackendMissingError} ("install pg to use postgres:// stores").
 * S3 credentials come from `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` / `AWS_SESSION_TOKEN`,
 * else the AWS SDK's provider chain; region from the URL, `AWS_REGION` or `AWS_DEFAULT_REGION`;
 * endpoint from the URL, `AWS_ENDPOINT_URL_S3` or `AWS_ENDPOINT_URL`. A SQLite store commits
 * its small new outputs in a writer thread when `WHARF_SQLITE_WRITER_THREAD=1` (see
 * `SqliteOutputStoreOptions.writerThread`).
 *
 * @example
 * ```ts
 * import { openDataPlane } from '@wharf/output-store/config';
 *
 * // WHARF_STORE=sqlite:///var/wharf/outputs.db WHARF_BLOBS=s3://wharf/outputs?region=eu-west-1
 * const { store, close } = await openDataPlane();
 * const ref = await store.emit({ producer, content: { kind: 'text', text: 'hi' }, idempotencyKey: 'k' });
 * await close();
 * ```
 */
export async function openDataPlane(options: OpenDataPlaneOptions = {}): Promise<DataPlane> {
  const parsedEnv = dataPlaneEnvSchema.safeParse(options.env ?? process.env);
  if (!parsedEnv.success)
    throw new InvalidStoreUrlError(
      String(parsedEnv.error.issues[0]?.path[0] ?? 'env'),
      'value',
      'must be a string',
    );
  const env = parsedEnv.data;
  const storeConfig =
    options.store !== undefined
      ? parseStoreUrl(options.store, 'store')
      : parseStoreUrl(envValue(env, 'WHARF_STORE') ?? '.wharf/outputs.db');
  const blobsUrl = options.blobs ?? envValue(env, 'WHARF_BLOBS');
  const blobsConfig =
    blobsUrl === undefined
      ? undefined
      : parseBlobsUrl(blobsUrl, options.blobs !== undefined ? 'blobs' : 'WHARF_BLOBS');

  if (storeConfig.kind === 'sqlite') {
    const writerThread = writerThreadOf(envValue(env, 'WHARF_SQLITE_WRITER_THREAD'));
    const base = {
      ...(writerThread === undefined ? {} : { writerThread }),
      ...options.sqlite,
      path: storeConfig.path,
    };
    let store: SqliteOutputStore;
    let blobs: BlobStore | undefined;
    if (blobsConfig === undefined) store = new SqliteOutputStore(base);
    // A SQLite store keeps its own crash-safe body directory; file:// only moves it.
    else if (blobsConfig.kind === 'file')
      store = new SqliteOutputStore({ ...base, blobDir: blobsConfig.directory });
    else {
      blobs = await openBlobStore(blobsConfig, env);
      try {
        store = new SqliteOutputStore({ ...base, blobs });
      } catch (error) {
        await blobs.close();
        throw error;
      }
      // The bucket is claimed for this store: a missing bucket, a wrong key or another store's
      // prefix fails here, not at the first large EMIT.
      try {
        await store.ready();
      } catch (error) {
        await store.close().catch(() => undefined);
        throw error;
      }
    }
    return { store, storeConfig, blobsConfig, blobs, close: () => store.close() };
  }

  if (blobsConfig === undefined) throw missingBlobs();
  // `pg` is an optional peer: loaded only for a postgres:// store.
  const { PostgresOutputStore } = await importBackend(
    () => import('../postgres/postgres-output-store.js'),
    ['pg'],
    'postgres://',
  );
  const blobs = await openBlobStore(blobsConfig, env);
  try {
    // `open` waits for the schema migration; on failure it closes `blobs` with the store.
    const store = await PostgresOutputStore.open({
      connectionString: storeConfig.url,
      blobs,
      ...(options.postgres ?? {}),
    });
    return { store, storeConfig, blobsConfig, blobs, close: () => store.close() };
  } catch (error) {
    await blobs.close().catch(() => undefined);
    throw error;
  }
}

/**
 * Refuses a data plane no store can be opened on, before anything connects: a `postgres://`
 * store needs a blob store (`WHARF_BLOBS`). `openDataPlane` checks it, and so should anything
 * that only describes a configuration (`wharf status`), so it never shows one the store refuses.
 *
 * @example
 * ```ts
 * assertUsablePlane(parseStoreUrl('postgres://db/wharf'), undefined); // throws InvalidStoreUrlError naming WHARF_BLOBS
 * ```
 */
export function assertUsablePlane(storeConfig: StoreConfig, blobsConfig: BlobsConfig | undefined): void {
  if (storeConfig.kind === 'postgres' && blobsConfig === undefined) throw missingBlobs();
}

function missingBlobs(): InvalidStoreUrlError {
  return new InvalidStoreUrlError(
    'WHARF_BLOBS',
    'value',
    'is required with a postgres:// store (file:///dir or s3://bucket)',
  );
}

/** `WHARF_SQLITE_WRITER_THREAD`: `1`/`true` on, `0`/`false` off, unset the store's default (off). */
function writerThreadOf(value: string | undefined): boolean | undefined {
  if (value === undefined) return undefined;
  if (value === '1' || value === 'true') return true;
  if (value === '0' || value === 'false') return false;
  throw new InvalidStoreUrlError('WHARF_SQLITE_WRITER_THREAD', 'value', 'must be 1, 0, true or false');
}
