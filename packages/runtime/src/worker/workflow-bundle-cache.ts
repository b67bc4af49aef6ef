import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type BundleOptions, bundleWorkflowCode } from '@temporalio/worker';
import { othersControl } from '@wharf/common';
import { workflowsPath } from './wharf-plugin.js';

/**
 * What {@link cachedWorkflowBundle} returns: the bundle's code (what `Worker.create` takes as
 * `workflowBundle`), read by this call from the cache file it checked, and that file's path
 * when the bundle is cached (none when no cache could be used).
 */
export interface CachedWorkflowBundle {
  code: string;
  codePath?: string;
}

/** Options of {@link cachedWorkflowBundle}. */
export interface WorkflowBundleCacheOptions {
  /** Folder of the cached bundles (created with mode 0700). See {@link workflowBundleCacheDir}. */
  dir: string;
  /**
   * Plugins whose `configureBundler` shapes the bundle (Wharf's plugin with tracing adds the
   * workflow interceptors): the same ones the worker gets. Default none: Wharf's workflows alone.
   */
  plugins?: BundleOptions['plugins'];
  /** Temporal's bundler logger. Default: the SDK's (its progress lines). */
  logger?: BundleOptions['logger'];
  /** Told why the cache was not used (an unsafe folder, a failed write); the bundle is still built. */
  onWarning?: (message: string) => void;
}

const BUNDLE_PREFIX = 'workflow-bundle-';
/** Bundles not used for this long are removed when a new one is written. */
const STALE_MS = 7 * 24 * 3_600_000;

/**
 * Wharf's workflow bundle, built once per version of the workflow code and kept in `dir`:
 * bundling takes seconds of CPU at every worker start (Temporal's bundler runs webpack), so a
 * `wharf run` after the first loads the bundle from the cache instead. The file is named for a
 * SHA-256 of what goes into it — the bundler options after `plugins` (workflow interceptors),
 * the versions of the Temporal SDK, zod and `nexus-rpc`, and the compiled code of
 * `@wharf/orchestrator` and the `@wharf/*` packages it depends on — so a rebuilt or upgraded
 * Wharf never loads a stale bundle. A bundle is written to a new temporary file and renamed, so a
 * reader never sees half of one. A folder or a cached file that is not this user's own, or that
 * others may write to, or a link, is not used (its code would run in this worker; the file is
 * checked once open, and its code read from that same open file): the bundle is then built in
 * memory, as it is when the folder cannot be created or written, and `onWarning` says why.
 *
 * @example
 * ```ts
 * const plugin = wharfPlugin({ store, artifacts });
 * const workflowBundle = await cachedWorkflowBundle({ dir: workflowBundleCacheDir(), plugins: [plugin] });
 * const worker = await Worker.create({ connection, taskQueue: 'wharf', plugins: [plugin], workflowBundle });
 * ```
 */
export async function cachedWorkflowBundle(
  options: WorkflowBundleCacheOptions,
): Promise<CachedWorkflowBundle> {
  const bundleOptions = configured(options.plugins ?? []);
  const build = async () =>
    (
      await bundleWorkflowCode({
        ...bundleOptions,
        ...(options.logger === undefined ? {} : { logger: options.logger }),
      })
    ).code;
  const warn = options.onWarning ?? (() => {});

  const unsafe = await unsafeFolder(options.dir);
  if (unsafe !== undefined) {
    warn(`not caching the workflow bundle in ${options.dir}: ${unsafe}`);
    return { code: await build() };
  }
  const key = await bundleKey(bundleOptions);
  const codePath = join(options.dir, `${BUNDLE_PREFIX}${key}.js`);
  const cached = await readOwnFile(codePath);
  if (typeof cached === 'string') return { code: cached, codePath };
  if (cached.refused !== undefined) {
    warn(`not using the cached workflow bundle ${codePath}: ${cached.refused}`);
    return { code: await build() };
  }
  const code = await build();
  const partial = join(options.dir, `.${BUNDLE_PREFIX}${key}.${process.pid}.${Date.now()}.tmp`);
  try {
    // `wx`: never through a file or link already at that name.
    await writeFile(partial, code, { mode: 0o600, flag: 'wx' });
    await rename(partial, codePath);
  } catch (error) {
    await rm(partial, { force: true });
    warn(`could not cache the workflow bundle in ${options.dir}: ${(error as Error).message}`);
    return { code };
  }
  await removeStale(options.dir, codePath);
  return { code, codePath };
}

/**
 * The text of `path` when it is a regular file of this user's that others may not write, checked
 * on the open file itself (no link followed), so nothing swapped in after the folder's check is
 * run; `{ refused }` says why not, `{}` when there is no such file. Its times are touched: the
 * stale-bundle sweep keeps what is used.
 */
async function readOwnFile(path: string): Promise<string | { refused?: string }> {
  let handle: Awaited<ReturnType<typeof open>>;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? {} : { refused: code === 'ELOOP' ? 'it is a symbolic link' : String(code) };
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return { refused: 'it is not a regular file' };
    const notPrivate = othersControl(info, process.getuid?.());
    if (notPrivate !== undefined) return { refused: `it ${notPrivate}` };
    const now = new Date();
    await handle.utimes(now, now);
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * The folder Wharf keeps its cache in: `WHARF_CACHE_DIR`, else `$XDG_CACHE_HOME/wharf`, else
 * `~/.cache/wharf`.
 *
 * @example
 * ```ts
 * workflowBundleCacheDir({ XDG_CACHE_HOME: '/var/cache/me' }); // '/var/cache/me/wharf'
 * ```
 */
export function workflowBundleCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.WHARF_CACHE_DIR) return env.WHARF_CACHE_DIR;
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'wharf');
  return join(homedir(), '.cache', 'wharf');
}

/** The bundler options Worker.create would use with these plugins. */
function configured(plugins: NonNullable<BundleOptions['plugins']>): BundleOptions {
  let options: BundleOptions = { workflowsPath };
  for (const plugin of plugins) options = plugin.configureBundler?.(options) ?? options;
  return options;
}

/** Why `dir` may not hold bundles this process runs, or undefined when it may (created if missing). */
async function unsafeFolder(dir: string): Promise<string | undefined> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const info = await lstat(dir);
    if (!info.isDirectory()) return 'it is not a directory';
    const notPrivate = othersControl(info, process.getuid?.());
    return notPrivate === undefined ? undefined : `it ${notPrivate}`;
  } catch (error) {
    return (error as Error).message;
  }
}

/** A SHA-256 (hex, 32 digits) of everything the bundle is built from. */
async function bundleKey(options: BundleOptions): Promise<string> {
  const hash = createHash('sha256');
  const {
    workflowsPath: entry,
    workflowInterceptorModules,
    payloadConverterPath,
    failureConverterPath,
    ignoreModules,
  } = options;
  hash.update(
    JSON.stringify({
      entry,
      workflowInterceptorModules,
      payloadConverterPath,
      failureConverterPath,
      ignoreModules,
    }),
  );
  const orchestratorRoot = fileURLToPath(new URL('../..', import.meta.url));
  const require = createRequire(join(orchestratorRoot, 'package.json'));
  for (const name of [
    '@temporalio/worker',
    '@temporalio/workflow',
    '@temporalio/common',
    'zod',
    'nexus-rpc',
  ]) {
    hash.update(`\0${name}@${await versionOf(require, name)}`);
  }
  for (const root of await wharfPackageRoots(orchestratorRoot)) {
    for (const file of await javascriptFiles(join(root, 'dist'))) {
      hash.update(`\0${relative(dirname(root), file)}\0`);
      hash.update(await readFile(file));
    }
  }
  return hash.digest('hex').slice(0, 32);
}

/** The installed version of `name` as `require` resolves it, or `none`. */
async function versionOf(require: NodeJS.Require, name: string): Promise<string> {
  try {
    let dir = dirname(require.resolve(name));
    for (;;) {
      const manifest = join(dir, 'package.json');
      try {
        const parsed = JSON.parse(await readFile(manifest, 'utf8')) as { name?: string; version?: string };
        if (parsed.name === name) return parsed.version ?? 'unknown';
      } catch {
        // No manifest here: go up.
      }
      const parent = dirname(dir);
      if (parent === dir) return 'unknown';
      dir = parent;
    }
  } catch {
    return 'none';
  }
}

/** `root` and the folders of every `@wharf/*` package it depends on, transitively. */
async function wharfPackageRoots(root: string): Promise<string[]> {
  const seen = new Set<string>();
  const pending = [root];
  while (pending.length > 0) {
    const current = pending.pop() as string;
    if (seen.has(current)) continue;
    seen.add(current);
    const manifest = JSON.parse(await readFile(join(current, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    const require = createRequire(join(current, 'package.json'));
    for (const name of Object.keys(manifest.dependencies ?? {})) {
      if (!name.startsWith('@wharf/')) continue;
      try {
        pending.push(dirname(require.resolve(`${name}/package.json`)));
      } catch {
        // Not installed: the bundle cannot import it either.
      }
    }
  }
  return [...seen].sort();
}

/** Every `.js` file under `dir`, sorted; none when it does not exist. */
async function javascriptFiles(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true });
    return entries
      .filter((entry) => entry.isFile() && entry.name.endsWith('.js'))
      .map((entry) => join(entry.parentPath, entry.name))
      .sort();
  } catch {
    return [];
  }
}

/** Removes other bundles in `dir` not used for a week (best effort). */
async function removeStale(dir: string, keep: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const now = Date.now();
  for (const name of names) {
    const path = join(dir, name);
    if (path === keep || !name.startsWith(BUNDLE_PREFIX)) continue;
    const info = await stat(path).catch(() => undefined);
    if (info !== undefined && now - info.mtimeMs > STALE_MS) await rm(path, { force: true });
  }
}
