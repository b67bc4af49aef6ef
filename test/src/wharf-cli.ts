import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** The built `wharf` command (apps/cli/dist: `pnpm build` first). */
export const wharfCliPath = fileURLToPath(new URL('../../apps/cli/dist/main.js', import.meta.url));

/** What one `wharf` process did. */
export interface WharfCliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs the real `wharf` command in `cwd` (with `env`, default this process's) and returns its
 * exit code and output, whatever the code.
 *
 * @example
 * ```ts
 * const run = await runWharf(['validate', 'swarm.yaml'], dir);
 * ```
 */
export async function runWharf(
  args: string[],
  cwd: string,
  timeoutMs = 120_000,
  env: NodeJS.ProcessEnv = process.env,
): Promise<WharfCliRun> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [wharfCliPath, ...args], {
      cwd,
      timeout: timeoutMs,
      env,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}
