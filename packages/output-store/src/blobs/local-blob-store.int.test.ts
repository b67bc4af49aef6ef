import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBlobStoreContract } from '../testing/index.js';
import { LocalBlobStore } from './local-blob-store.js';

runBlobStoreContract('LocalBlobStore', (context) => new LocalBlobStore({ root: context.scratchDir }));

describe('LocalBlobStore on disk', () => {
  let directory: string;
  beforeAll(async () => {
    directory = await mkdtemp(join(tmpdir(), 'wharf-local-blobs-'));
  });
  afterAll(async () => {
    await rm(directory, { recursive: true, force: true });
  });

  it('claims a fresh directory another worker of the same store claimed and wrote a body to meanwhile', async () => {
    const root = join(directory, 'raced');
    const owner = { storeId: 'store-1', description: 'sqlite:///shared/outputs.db' };
    const first = new LocalBlobStore({ root });
    const second = new LocalBlobStore({ root });
    // Between `first` finding no marker and looking for bodies, `second` claims and stores one.
    const list = first.list.bind(first);
    let raced = false;
    first.list = () => {
      if (!raced) {
        raced = true;
        return (async function* () {
          await second.claim(owner);
          const bytes = Buffer.from('a body of the same store');
          const sha = createHash('sha256').update(bytes).digest('hex');
          await mkdir(join(root, sha.slice(0, 2)), { recursive: true });
          await writeFile(join(root, sha.slice(0, 2), sha), bytes);
          yield* list();
        })();
      }
      return list();
    };
    await first.claim(owner);
    expect(raced).toBe(true);
    // Another store's marker is still refused.
    await expect(
      new LocalBlobStore({ root }).claim({ storeId: 'store-2', description: 'another' }),
    ).rejects.toThrow();
    await first.close();
    await second.close();
  });

  it('uses the SQLite store layout, so its body files are readable through it', async () => {
    const root = join(directory, 'layout');
    const bytes = Buffer.from('laid out like outputs.db.blobs');
    const sha = createHash('sha256').update(bytes).digest('hex');
    await mkdir(join(root, sha.slice(0, 2)), { recursive: true });
    await writeFile(join(root, sha.slice(0, 2), sha), bytes);
    const blobs = new LocalBlobStore({ root });
    expect(blobs.location).toBe(`file://${root}`);
    expect(await blobs.has(sha)).toBe(true);
    await blobs.close();
  });

  it("removes dead writers' temp files on open and keeps live ones", async () => {
    const root = join(directory, 'temps');
    const first = new LocalBlobStore({ root });
    const live = first.claimTemp();
    await writeFile(live, 'in progress');
    // A pid that cannot be running (above the kernel's pid_max) stands for a killed writer.
    const dead = join(first.tempDir, '4194305-abcdef-1.part');
    await writeFile(dead, 'left behind');
    const second = new LocalBlobStore({ root });
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(live)).toBe(true);
    await first.close();
    expect(existsSync(live)).toBe(false);
    await second.close();
    expect(await readdir(first.tempDir)).toEqual([]);
  });

  it('copies a body that comes from another directory tree and fsyncs it into place', async () => {
    const root = join(directory, 'copy');
    const blobs = new LocalBlobStore({ root });
    const bytes = Buffer.alloc(1 << 20, 7);
    const sha = createHash('sha256').update(bytes).digest('hex');
    const source = join(directory, 'outside.part');
    await writeFile(source, bytes);
    await blobs.putFile(sha, source, bytes.length);
    expect(existsSync(source)).toBe(false);
    expect(existsSync(join(root, sha.slice(0, 2), sha))).toBe(true);
    await blobs.close();
  });
});
