import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/** Runs a shell command and returns all of its stdout. */
export async function runAndReturnStdout(command: string): Promise<string> {
  const { stdout } = await execFileAsync('bash', ['-c', command], { maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}
