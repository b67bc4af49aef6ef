import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StorageFailureError } from '../errors.js';
import { OutputStoreError } from '../output-store-error.js';
import type { DataPlane } from './open-data-plane.js';

/**
 * What {@link checkDataPlane} found: the store answered, and the blob store (when there is
 * one) took a body, gave it back byte for byte and removed it.
 *
 * @example
 * ```ts
 * const check: DataPlaneCheck = { store: 'answered', blobs: 'written, read and removed' };
 * ```
 */
export interface DataPlaneCheck {
  readonly store: 'answered';
  readonly blobs: 'written, read and removed' | 'none';
}

async function readAll(stream: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks);
}

/**
 * Proves an opened data plane works before anything depends on it (a worker at start,
 * `wharf status`): the store answers a query, and its blob store, when it has one, stores a
 * small probe body, reads it back and removes it, so a read-only key, a bucket policy that
 * refuses writes or deletes, or a full disk shows now with the blob store's own error, not
 * at the first large EMIT. (Opening already connected to the database and claimed the blob
 * store.)
 *
 * @example
 * ```ts
 * const plane = await openDataPlane();
 * await checkDataPlane(plane); // throws a StorageFailureError naming what failed
 * ```
 */
export async function checkDataPlane(plane: DataPlane): Promise<DataPlaneCheck> {
  await plane.store.list({ limit: 1 });
  const { blobs } = plane;
  if (blobs === undefined) return { store: 'answered', blobs: 'none' };
  const probe = Buffer.from(`wharf data-plane probe ${randomBytes(16).toString('hex')}\n`);
  const sha256 = createHash('sha256').update(probe).digest('hex');
  const folder = await mkdtemp(join(tmpdir(), 'wharf-probe-'));
  try {
    const path = join(folder, 'probe');
    await writeFile(path, probe, { mode: 0o600 });
    await blobs.putFile(sha256, path, probe.byteLength);
    const back = await readAll(await blobs.open(sha256));
    await blobs.remove(sha256);
    if (!back.equals(probe))
      throw new StorageFailureError(`${blobs.location} gave back other bytes than it was given`);
    return { store: 'answered', blobs: 'written, read and removed' };
  } catch (error) {
    if (OutputStoreError.isInstance(error)) throw error;
    throw new StorageFailureError(`cannot use ${blobs.location}: ${String(error)}`, { cause: error });
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}
