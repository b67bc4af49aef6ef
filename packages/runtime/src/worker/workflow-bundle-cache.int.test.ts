import { chmod, mkdtemp, readdir, readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimplePlugin } from '@temporalio/plugin';
import type { Logger } from '@temporalio/worker';
// The compiled package: the bundler reads Wharf's workflows as built JavaScript (dist/).
import { cachedWorkflowBundle, workflowBundleCacheDir } from '@wharf/runtime/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/** A bundler logger that counts the bundles it saw built. */
function countingLogger(): Logger & { bundles: number } {
  const logger = {
    bundles: 0,
    log() {},
    trace() {},
    debug() {},
    info(message: string) {
      if (/bundle/i.test(message)) logger.bundles += 1;
    },
    warn() {},
    error() {},
  };
  return logger;
}

describe('cachedWorkflowBundle', () => {
  let root: string;
  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'wharf-bundle-cache-'));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('bundles once into a private file, then loads that file without bundling; other bundler options get a file of their own', async () => {
    const dir = join(root, 'cache');
    const first = countingLogger();
    const built = await cachedWorkflowBundle({ dir, logger: first });
    expect(first.bundles).toBeGreaterThan(0);
    if (built.codePath === undefined) throw new Error('expected a cached file');
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    expect((await stat(built.codePath)).mode & 0o777).toBe(0o600);
    const code = await readFile(built.codePath, 'utf8');
    expect(code).toContain('swarmWorkflow');
    expect(built.code).toBe(code);

    const second = countingLogger();
    const loaded = await cachedWorkflowBundle({ dir, logger: second });
    expect(loaded).toEqual(built);
    expect(second.bundles).toBe(0);

    // A plugin that adds a workflow interceptor module changes what is bundled: a new file.
    const interceptors = join(root, 'interceptors.js');
    await writeFile(interceptors, 'export const interceptors = () => ({ inbound: [], outbound: [] });\n');
    const traced = new SimplePlugin({
      name: 'probe',
      workerInterceptors: { workflowModules: [interceptors] },
    });
    const other = await cachedWorkflowBundle({ dir, plugins: [traced], logger: countingLogger() });
    if (other.codePath === undefined) throw new Error('expected a cached file');
    expect(other.codePath).not.toBe(built.codePath);
    expect(await readFile(other.codePath, 'utf8')).toContain('interceptors.js');
    expect((await readdir(dir)).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('does not use a folder others may write to: the bundle is built in memory and the reason is told', async () => {
    const dir = join(root, 'shared');
    await cachedWorkflowBundle({ dir, logger: countingLogger() });
    await chmod(dir, 0o777);
    const warnings: string[] = [];
    const logger = countingLogger();
    const bundle = await cachedWorkflowBundle({
      dir,
      logger,
      onWarning: (message) => warnings.push(message),
    });
    expect('code' in bundle && bundle.code.includes('swarmWorkflow')).toBe(true);
    expect(logger.bundles).toBeGreaterThan(0);
    expect(warnings).toEqual([
      `not caching the workflow bundle in ${dir}: it is writable by other users (mode 777)`,
    ]);
  });

  it('does not run a cached file others may write to, or a link put in its place: it builds the bundle instead', async () => {
    const dir = join(root, 'swapped');
    const built = await cachedWorkflowBundle({ dir, logger: countingLogger() });
    if (built.codePath === undefined) throw new Error('expected a cached file');
    const planted = join(root, 'planted.js');
    await writeFile(planted, 'throw new Error("not Wharf");\n');

    await chmod(built.codePath, 0o666);
    const warnings: string[] = [];
    const writable = await cachedWorkflowBundle({
      dir,
      logger: countingLogger(),
      onWarning: (m) => warnings.push(m),
    });
    expect(writable.code).toContain('swarmWorkflow');
    expect(writable.codePath).toBeUndefined();

    await rm(built.codePath);
    await symlink(planted, built.codePath);
    const linked = await cachedWorkflowBundle({
      dir,
      logger: countingLogger(),
      onWarning: (m) => warnings.push(m),
    });
    expect(linked.code).toContain('swarmWorkflow');
    expect(linked.code).not.toContain('not Wharf');
    expect(warnings).toEqual([
      `not using the cached workflow bundle ${built.codePath}: it is writable by other users (mode 666)`,
      `not using the cached workflow bundle ${built.codePath}: it is a symbolic link`,
    ]);
  });

  it('removes bundles unused for a week when it writes a new one, and keeps recent ones', async () => {
    const dir = join(root, 'stale');
    const built = await cachedWorkflowBundle({ dir, logger: countingLogger() });
    if (built.codePath === undefined) throw new Error('expected a cached file');
    const old = join(dir, 'workflow-bundle-0000.js');
    const recent = join(dir, 'workflow-bundle-1111.js');
    await writeFile(old, '// an older Wharf');
    await writeFile(recent, '// another Wharf in use');
    const eightDaysAgo = new Date(Date.now() - 8 * 86_400_000);
    await utimes(old, eightDaysAgo, eightDaysAgo);
    await rm(built.codePath);

    await cachedWorkflowBundle({ dir, logger: countingLogger() });
    expect((await readdir(dir)).sort()).toEqual(
      [built.codePath.slice(dir.length + 1), 'workflow-bundle-1111.js'].sort(),
    );
  });

  it('finds its folder in WHARF_CACHE_DIR, else XDG_CACHE_HOME, else ~/.cache', () => {
    expect(workflowBundleCacheDir({ WHARF_CACHE_DIR: '/c', XDG_CACHE_HOME: '/x' })).toBe('/c');
    expect(workflowBundleCacheDir({ XDG_CACHE_HOME: '/x' })).toBe('/x/wharf');
    expect(workflowBundleCacheDir({})).toMatch(/\/\.cache\/wharf$/);
  });
});
