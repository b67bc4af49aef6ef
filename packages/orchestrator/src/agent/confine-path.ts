import { lstat, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { WharfOrchestratorError } from '../orchestrator-error.js';

/**
 * Resolves `path` (relative to `root`, or absolute) to a path inside `root`, following
 * symbolic links: a `..` escape, an absolute path elsewhere, or a link (of the path or of
 * any directory above it) that leads outside `root` is refused with `PATH_OUTSIDE_WORKDIR`.
 * The path itself need not exist (a file about to be written).
 *
 * @example
 * ```ts
 * await confinePath('/repo', 'src/index.ts'); // '/repo/src/index.ts'
 * await confinePath('/repo', '../etc/passwd'); // throws PATH_OUTSIDE_WORKDIR
 * ```
 */
export async function confinePath(root: string, path: string): Promise<string> {
  const realRoot = await realpath(root);
  const target = resolve(realRoot, path);
  const outside = (candidate: string) => {
    const rel = relative(realRoot, candidate);
    return rel === '..' || rel.startsWith(`..${sep}`) || isAbsolute(rel);
  };
  const refuse = (why: string): never => {
    throw new WharfOrchestratorError('PATH_OUTSIDE_WORKDIR', `${path}: ${why} (work directory ${realRoot})`);
  };
  if (outside(target)) refuse('outside the work directory');
  // The deepest part of the path that exists decides where it really leads.
  let existing = target;
  for (;;) {
    const found = await lstat(existing).catch(() => undefined);
    if (found !== undefined) break;
    const parent = dirname(existing);
    if (parent === existing) break;
    existing = parent;
  }
  const real = await realpath(existing);
  if (outside(real)) refuse('a symbolic link leads outside the work directory');
  return existing === target ? real : resolve(real, relative(existing, target));
}
