import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { FsArtifactStore } from '@wharf/evidence';
import { SqliteOutputStore } from '@wharf/output-store';

/** The stores of one Wharf data directory (default `.wharf/`). */
export interface DataDir {
  root: string;
  store: SqliteOutputStore;
  artifacts: FsArtifactStore;
  /** HMAC secret shared by the intake server and the workers that mint spawn tokens. */
  secret: string;
  /** Spill files of running scripts. */
  workDir: string;
  /** The embedded Temporal dev server's SQLite file. */
  temporalDb: string;
  close(): Promise<void>;
}

/**
 * Opens (creating if needed) a Wharf data directory: `outputs.db` (+ `outputs.db.blobs/`),
 * `artifacts/`, `work/`, `temporal.db` and a `secret` file (mode 0600).
 *
 * @example
 * ```ts
 * const data = await openDataDir('.wharf');
 * ```
 */
export async function openDataDir(root: string): Promise<DataDir> {
  await mkdir(root, { recursive: true });
  const secretPath = join(root, 'secret');
  let secret: string;
  try {
    secret = (await readFile(secretPath, 'utf8')).trim();
  } catch {
    secret = randomBytes(32).toString('hex');
    await writeFile(secretPath, `${secret}\n`, { mode: 0o600, flag: 'wx' }).catch(async () => {
      secret = (await readFile(secretPath, 'utf8')).trim();
    });
  }
  const store = new SqliteOutputStore({ path: join(root, 'outputs.db') });
  const workDir = join(root, 'work');
  return {
    root,
    store,
    // Scripts' captured outputs are handed over from the work directory (never from elsewhere).
    artifacts: new FsArtifactStore({ root: join(root, 'artifacts'), spoolDirectories: [workDir] }),
    secret,
    workDir,
    temporalDb: join(root, 'temporal.db'),
    close: () => store.close(),
  };
}
