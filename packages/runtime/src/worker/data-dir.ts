import { randomBytes } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { type ArtifactStore, FsArtifactStore } from '@wharf/evidence';
import { OutputStoreArtifactStore } from '@wharf/evidence/output-store';
import { ensurePrivateDirectory, type OutputStore, tightenPrivateFile } from '@wharf/output-store';
import {
  assertUsablePlane,
  type BlobsConfig,
  checkDataPlane,
  type DataPlaneCheck,
  describeBlobs,
  describeStore,
  openDataPlane,
  parseBlobsUrl,
  parseStoreUrl,
  type StoreConfig,
} from '@wharf/output-store/config';
import type { DataPlaneIdentity } from '@wharf/swarm';
import { dataPlaneIdentity } from './data-plane-identity.js';

/**
 * Where a data directory's outputs and evidence live. Each URL falls back to its environment
 * variable (`WHARF_STORE`, `WHARF_BLOBS`); with neither, the SQLite store and the artifact
 * directory inside the data directory.
 *
 * @example
 * ```ts
 * const options: DataPlaneOptions = {
 *   store: 'postgres://wharf@db:5432/wharf',
 *   blobs: 's3://wharf/outputs?region=eu-west-1',
 * };
 * ```
 */
export interface DataPlaneOptions {
  /** `postgres://…`, `sqlite:///path` or a file path (see `parseStoreUrl`). */
  store?: string;
  /** `s3://bucket/prefix?…` or `file:///dir` (see `parseBlobsUrl`). */
  blobs?: string;
  /** Where `WHARF_STORE`, `WHARF_BLOBS` and the `AWS_*` variables are read; default `process.env`. */
  env?: Readonly<Record<string, string | undefined>>;
}

/** The stores of one Wharf data directory (default `.wharf/`). */
export interface DataDir {
  root: string;
  store: OutputStore;
  /**
   * Evidence: the `artifacts/` directory by default; with a configured store, the same output
   * store (`OutputStoreArtifactStore`), so a supervisor on one machine reads what workers on
   * others wrote.
   */
  artifacts: ArtifactStore;
  storeConfig: StoreConfig;
  /** Undefined when a SQLite store keeps its bodies beside its file. */
  blobsConfig: BlobsConfig | undefined;
  /** Where the store, its bodies and the evidence live, without passwords: fit to print. */
  location: { store: string; blobs: string; artifacts: string };
  /**
   * Which data plane this is (see `dataPlaneIdentity`): a worker refuses runs of another, and
   * a client puts it in the swarms it starts.
   */
  dataPlane: DataPlaneIdentity;
  /** HMAC secret shared by the intake server and the workers that mint spawn tokens. */
  secret: string;
  /** Spill files of running scripts. */
  workDir: string;
  /** The embedded Temporal dev server's SQLite file. */
  temporalDb: string;
  /**
   * Proves the data plane works (`checkDataPlane`): the store answers, and a blob store takes,
   * gives back and removes a probe body. Throws the store's or blob store's error.
   */
  check(): Promise<DataPlaneCheck>;
  close(): Promise<void>;
}

function configured(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** Where a data directory's data plane is, resolved from options and environment; see {@link resolveDataPlane}. */
export interface ResolvedDataPlane {
  /** The store URL or path to open. */
  store: string;
  blobs: string | undefined;
  /** True when `store` or `blobs` was configured: evidence then rides the output store. */
  shared: boolean;
  storeConfig: StoreConfig;
  blobsConfig: BlobsConfig | undefined;
  /** Where the store, its bodies and the evidence live, without passwords: fit to print. */
  location: { store: string; blobs: string; artifacts: string };
}

/**
 * Resolves (and validates, without connecting) where a data directory's outputs and evidence
 * live: `store`/`blobs`, else `WHARF_STORE`/`WHARF_BLOBS`, else `outputs.db` and `artifacts/`
 * in the directory. A malformed URL, or a pair no store opens on (`postgres://` without
 * blobs), is an `InvalidStoreUrlError` naming the bad part.
 *
 * @example
 * ```ts
 * const { location } = resolveDataPlane('.wharf', { env: process.env });
 * console.log(`store ${location.store}, blobs ${location.blobs}`);
 * ```
 */
export function resolveDataPlane(root: string, options: DataPlaneOptions = {}): ResolvedDataPlane {
  const env = options.env ?? process.env;
  const storeUrl = options.store ?? configured(env.WHARF_STORE);
  const blobs = options.blobs ?? configured(env.WHARF_BLOBS);
  const store = storeUrl ?? join(root, 'outputs.db');
  const storeVariable = options.store === undefined ? 'WHARF_STORE' : 'store';
  const storeConfig = parseStoreUrl(store, storeVariable);
  const blobsConfig =
    blobs === undefined
      ? undefined
      : parseBlobsUrl(blobs, options.blobs === undefined ? 'WHARF_BLOBS' : 'blobs');
  // A configuration the store would refuse is refused here too, so nothing describes it.
  assertUsablePlane(storeConfig, blobsConfig);
  const shared = storeUrl !== undefined || blobs !== undefined;
  return {
    store,
    blobs,
    shared,
    storeConfig,
    blobsConfig,
    location: {
      store: describeStore(storeConfig),
      blobs: describeBlobs(blobsConfig, storeConfig),
      artifacts: shared ? 'in the output store' : join(root, 'artifacts'),
    },
  };
}

/**
 * Opens (creating if needed) a Wharf data directory (mode 0700, as are the folders the stores
 * create in it): `work/`, `temporal.db`, a `secret` file (mode 0600) and the data plane. A
 * directory or secret of this user's made looser before is tightened. By default the data plane is local: `outputs.db`
 * (+ `outputs.db.blobs/`) and `artifacts/`. With `store`/`blobs` (or `WHARF_STORE`/
 * `WHARF_BLOBS`) the outputs go where they say — PostgreSQL, a SQLite file elsewhere, an S3
 * bucket — and the evidence rides the same store, so workers on several machines share both.
 *
 * @example
 * ```ts
 * const local = await openDataDir('.wharf');
 * const shared = await openDataDir('/var/lib/wharf', {
 *   store: 'postgres://wharf@db:5432/wharf',
 *   blobs: 's3://wharf/outputs?endpoint=http://s3:9000',
 * });
 * ```
 */
export async function openDataDir(root: string, options: DataPlaneOptions = {}): Promise<DataDir> {
  // Private whatever the umask: outputs, evidence, the secret and scripts' spill files live here.
  ensurePrivateDirectory(root);
  const secretPath = join(root, 'secret');
  tightenPrivateFile(secretPath);
  let secret: string;
  try {
    secret = (await readFile(secretPath, 'utf8')).trim();
  } catch {
    secret = randomBytes(32).toString('hex');
    await writeFile(secretPath, `${secret}\n`, { mode: 0o600, flag: 'wx' }).catch(async () => {
      secret = (await readFile(secretPath, 'utf8')).trim();
    });
  }
  const env = options.env ?? process.env;
  const resolved = resolveDataPlane(root, { ...options, env });
  const plane = await openDataPlane({
    store: resolved.store,
    ...(resolved.blobs === undefined ? {} : { blobs: resolved.blobs }),
    env,
  });
  const workDir = join(root, 'work');
  const dataPlane = await dataPlaneIdentity({ ...plane, location: resolved.location }).catch(
    async (error) => {
      await plane.close();
      throw error;
    },
  );
  return {
    root,
    store: plane.store,
    // Scripts' captured outputs are handed over from the work directory (never from elsewhere).
    artifacts: resolved.shared
      ? new OutputStoreArtifactStore({ outputs: plane.store, spoolDirectories: [workDir] })
      : new FsArtifactStore({ root: join(root, 'artifacts'), spoolDirectories: [workDir] }),
    storeConfig: plane.storeConfig,
    blobsConfig: plane.blobsConfig,
    location: resolved.location,
    dataPlane,
    secret,
    workDir,
    temporalDb: join(root, 'temporal.db'),
    check: () => checkDataPlane(plane),
    close: () => plane.close(),
  };
}
