import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';

/**
 * A folder of its own for each test of the enclosing `describe` (under the system's temporary
 * folder, named from `prefix`), removed after the test, and the path of a database file in it
 * that nothing has created yet. Read its fields inside a test or a hook.
 *
 * @example
 * ```ts
 * describe('SqliteOutputStore …', () => {
 *   const scratch = scratchDatabase('wharf-output-group-');
 *   it('…', async () => {
 *     const store = new SqliteOutputStore({ path: scratch.dbPath });
 *   });
 * });
 * ```
 */
export function scratchDatabase(prefix: string): { readonly directory: string; readonly dbPath: string } {
  let directory: string | undefined;
  beforeEach(async () => {
    directory = await mkdtemp(join(tmpdir(), prefix));
  });
  afterEach(async () => {
    if (directory !== undefined) await rm(directory, { recursive: true, force: true });
    directory = undefined;
  });
  const current = () => {
    if (directory === undefined) throw new Error('a scratch database is read inside a test or a hook');
    return directory;
  };
  return {
    get directory() {
      return current();
    },
    get dbPath() {
      return join(current(), 'outputs.db');
    },
  };
}
