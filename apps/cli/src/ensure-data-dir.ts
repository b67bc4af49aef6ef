import { mkdir } from 'node:fs/promises';
import { CliError } from './cli-error.js';

/**
 * Creates the `--data-dir` directory if needed; one that cannot be created (a file in the
 * way, no permission) is a usage error naming the path (exit 2), not an unexpected failure.
 *
 * @example
 * ```ts
 * await ensureDataDir(options.dataDir);
 * ```
 */
export async function ensureDataDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new CliError('USAGE', `--data-dir ${dir}: cannot create this directory (${reason})`, {
      cause: error,
    });
  }
}
