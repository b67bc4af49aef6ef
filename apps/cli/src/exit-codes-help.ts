import { exitCodes } from './cli-error.js';

/**
 * The exit codes, as every `--help` ends with them (the numbers are `exitCodes`', so the text
 * cannot drift from what the commands return).
 *
 * @example
 * ```ts
 * program.addHelpText('afterAll', exitCodesHelp());
 * ```
 */
export function exitCodesHelp(): string {
  const codes: [number, string][] = [
    [0, 'ok'],
    [exitCodes.SWARM_FAILED, 'the swarm failed'],
    [exitCodes.USAGE, 'bad usage, definition or configuration (a TLS or API key the server refused too)'],
    [exitCodes.NOT_FOUND, 'not found (a run, an output, a database, a bucket)'],
    [exitCodes.UNREACHABLE, 'no server answered (Temporal, the store)'],
    [exitCodes.NO_WORKER, 'no worker serves the run (`wharf resume <run>` gives it one)'],
    [70, 'an unexpected internal error'],
    [exitCodes.TIMEOUT, "`wharf emit`'s upload was cut as too slow (retrying may pass)"],
    [exitCodes.INTERRUPTED, 'stopped by Ctrl-C'],
    [exitCodes.TERMINATED, 'stopped by SIGTERM'],
  ];
  const width = Math.max(...codes.map(([code]) => String(code).length));
  return [
    '',
    'Exit codes:',
    ...codes.map(([code, what]) => `  ${String(code).padStart(width)}  ${what}`),
  ].join('\n');
}
