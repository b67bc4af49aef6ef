import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** Runs a shell script, forked by the worker process itself, and returns its stdout. */
export async function runScript(command: string): Promise<string> {
  const { stdout } = await execFileAsync('bash', ['-c', command]);
  return stdout;
}
