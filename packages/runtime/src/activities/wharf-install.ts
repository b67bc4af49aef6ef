import { existsSync, realpathSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Directories a sandbox replaces with private ones: an install root must never be one of them. */
const PRIVATE_DIRECTORIES = ['/', '/tmp', '/run'];

/**
 * The install root of a module file: the directory holding the `node_modules` it was installed
 * into (a project with Wharf installed, or a checkout of Wharf, whose `node_modules` its
 * workspace packages import from), or `undefined` for a file in no `node_modules`. Where that
 * directory is `/`, `/tmp` or `/run` itself, the `node_modules` directory alone, so that showing
 * the install never shows the rest of `/tmp`.
 *
 * @example
 * ```ts
 * installRootOf('/tmp/fresh/node_modules/.pnpm/zod@4.1.0/node_modules/zod/index.js'); // '/tmp/fresh'
 * installRootOf('/tmp/node_modules/zod/index.js'); // '/tmp/node_modules'
 * installRootOf('/tmp/fresh/packages/runtime/dist/index.js'); // undefined
 * ```
 */
export function installRootOf(file: string): string | undefined {
  const path = resolve(file);
  const at = path.indexOf(`${sep}node_modules${sep}`);
  if (at < 0) return undefined;
  const root = path.slice(0, at) || sep;
  return PRIVATE_DIRECTORIES.includes(root) ? join(root, 'node_modules') : root;
}

/**
 * Where Wharf's own tools are installed, as a sandboxed script needs them to run `wharf emit`
 * or import the EMIT client: the install roots ({@link installRootOf}) of this package, of
 * `@wharf/output-store/client` and of a dependency they import (a workspace package outside
 * any `node_modules` counts by its package root), and the directory of the `node` executable
 * running the worker. Real paths, none inside another. The sandbox binds those lying under
 * `/tmp` or `/run` back into its private ones (`SandboxPolicy.programs`).
 *
 * @example
 * ```ts
 * wharfInstallPaths(); // in a checkout under /tmp: ['/tmp/fresh', '/usr/bin']
 * ```
 */
export function wharfInstallPaths(): string[] {
  const modules = [
    fileURLToPath(import.meta.url),
    fileURLToPath(import.meta.resolve('@wharf/output-store/client')),
    fileURLToPath(import.meta.resolve('zod')),
  ];
  const roots = modules.flatMap((module) => {
    const real = realPath(module);
    if (real === undefined) return [];
    const root = installRootOf(real) ?? packageRootOf(real);
    return root === undefined ? [] : [root];
  });
  const node = realPath(process.execPath);
  return outermost([...roots, ...(node === undefined ? [] : [dirname(node)])]);
}

function realPath(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** The nearest directory above `file` holding a `package.json`. */
function packageRootOf(file: string): string | undefined {
  for (let directory = dirname(file); ; directory = dirname(directory)) {
    if (existsSync(join(directory, 'package.json'))) {
      return PRIVATE_DIRECTORIES.includes(directory) ? undefined : directory;
    }
    if (dirname(directory) === directory) return undefined;
  }
}

/** The paths without duplicates and without any lying inside another of them. */
function outermost(paths: readonly string[]): string[] {
  const unique = [...new Set(paths)];
  return unique.filter(
    (path) =>
      !unique.some((other) => other !== path && path.startsWith(other === sep ? sep : `${other}${sep}`)),
  );
}
