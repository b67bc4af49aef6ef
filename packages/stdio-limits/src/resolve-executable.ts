import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/**
 * The path `spawn` would run for `command`: a command with a slash as it is (relative to `cwd`),
 * others looked up in the `PATH` of `env` (default `process.env`). Undefined when nothing
 * executable is found.
 *
 * @example
 * ```ts
 * resolveExecutable('sh'); // '/usr/bin/sh'
 * resolveExecutable('no-such-command'); // undefined
 * ```
 */
export function resolveExecutable(
  command: string,
  options: { env?: NodeJS.ProcessEnv | undefined; cwd?: string | undefined } = {},
): string | undefined {
  if (command.includes('/')) {
    const path = isAbsolute(command) ? command : resolve(options.cwd ?? process.cwd(), command);
    return executable(path) ? path : undefined;
  }
  const searchPath = (options.env ?? process.env).PATH ?? '/usr/local/bin:/usr/bin:/bin';
  for (const directory of searchPath.split(delimiter)) {
    const path = join(resolve(options.cwd ?? process.cwd(), directory || '.'), command);
    if (executable(path)) return path;
  }
  return undefined;
}
