import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { workflowBuildId } from './workflow-build-id.js';

describe('workflowBuildId', () => {
  it('names the workflow code by version and bundle hash, the same bundled or cached', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'wharf-build-id-'));
    try {
      const inMemory = await workflowBuildId();
      expect(inMemory).toMatch(/^\d+\.\d+\.\d+(-[\w.]+)?-[0-9a-f]{12}$/);
      expect(await workflowBuildId({ cacheDir: dir })).toBe(inMemory);
      // The second call reads the cached bundle: the same id.
      expect(await workflowBuildId({ cacheDir: dir })).toBe(inMemory);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
