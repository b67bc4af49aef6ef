import { createHash, randomBytes } from 'node:crypto';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { LocalBlobStore } from '../blobs/local-blob-store.js';
import { storeMarkerName } from '../blobs/store-marker.js';
import { BlobStoreUnmarkedError } from '../errors.js';
import { runOutputStoreContract } from '../testing/index.js';
import { SqliteOutputStore } from './sqlite-output-store.js';

runOutputStoreContract(
  'SqliteOutputStore',
  (context) =>
    new SqliteOutputStore({
      path: join(context.scratchDir, 'db', 'outputs.db'),
      now: context.now,
      allowedRoots: [context.allowedRoot],
      maxBodyBytes: context.maxBodyBytes,
    }),
);

describe('SqliteOutputStore gc', () => {
  it('counts the unreferenced bodies it sweeps, in its own body directory and in a blob store', async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'wharf-sqlite-gc-'));
    try {
      const orphans = Array.from({ length: 10 }, (_, index) => Buffer.from(`never committed #${index}`));
      const orphanBytes = orphans.reduce((sum, orphan) => sum + orphan.length, 0);
      const sha = (body: Buffer) => createHash('sha256').update(body).digest('hex');

      // Body files a process killed between publishing them and committing their rows leaves.
      const local = new SqliteOutputStore({ path: join(scratch, 'local.db') });
      await local.ready();
      for (const orphan of orphans) {
        const digest = sha(orphan);
        await mkdir(join(scratch, 'local.db.blobs', digest.slice(0, 2)), { recursive: true });
        await writeFile(join(scratch, 'local.db.blobs', digest.slice(0, 2), digest), orphan);
      }
      expect(await local.gc({ orphanGraceMs: 0 })).toEqual({
        removed: 0,
        freedBytes: 0,
        orphanBodies: { removed: 10, freedBytes: orphanBytes },
      });
      await local.close();

      // Bodies an EMIT uploaded to the store's blob store before dying.
      const blobs = new LocalBlobStore({ root: join(scratch, 'blobs') });
      const external = new SqliteOutputStore({ path: join(scratch, 'external.db'), blobs });
      await external.ready();
      for (const [index, orphan] of orphans.entries()) {
        const path = join(blobs.tempDir, `orphan-${index}.part`);
        await writeFile(path, orphan);
        await blobs.putFile(sha(orphan), path, orphan.length);
      }
      expect(await external.gc({ orphanGraceMs: 0 })).toEqual({
        removed: 0,
        freedBytes: 0,
        orphanBodies: { removed: 10, freedBytes: orphanBytes },
      });
      await external.close();
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });
});

describe('SqliteOutputStore on a blob store whose marker was deleted', () => {
  it('keeps the bodies from a second store and writes its own marker again on open', async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'wharf-sqlite-unmarked-'));
    const root = join(scratch, 'blobs');
    const open = (name: string) =>
      new SqliteOutputStore({
        path: join(scratch, name),
        blobs: new LocalBlobStore({ root }),
        inlineThresholdBytes: 16,
      });
    const bodies = async () =>
      (await readdir(root, { recursive: true })).filter((name) => /[0-9a-f]{64}$/.test(name)).length;
    try {
      const first = open('first.db');
      for (let index = 0; index < 10; index++)
        await first.emit({
          producer: { ownerId: 'o', runId: 'r', spawnId: 's' },
          content: { kind: 'bytes', bytes: randomBytes(1000) },
          idempotencyKey: `k${index}`,
        });
      await first.close();
      const marker = JSON.parse(await readFile(join(root, storeMarkerName), 'utf8')) as { storeId: string };
      await rm(join(root, storeMarkerName));

      const second = open('second.db');
      const refused = await second.ready().catch((caught: unknown) => caught);
      await second.close();
      expect(BlobStoreUnmarkedError.isInstance(refused)).toBe(true);
      expect((refused as Error).message).toContain(pathToFileURL(root).href);
      expect(await bodies()).toBe(10);

      const again = open('first.db');
      await again.ready();
      await again.close();
      expect(JSON.parse(await readFile(join(root, storeMarkerName), 'utf8'))).toMatchObject({
        storeId: marker.storeId,
      });
      expect(await bodies()).toBe(10);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });
});
