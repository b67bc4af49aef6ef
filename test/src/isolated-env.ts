import { join } from 'node:path';

/**
 * This process's environment without any `TEMPORAL_*` or `OTEL_*` setting of its own, and with
 * no user config file in reach (`XDG_CONFIG_HOME` under `scratch`): a child process given it
 * sees only the Temporal and tracing settings a test adds.
 *
 * @example
 * ```ts
 * const env = { ...isolatedEnv(dir), TEMPORAL_PROFILE: 'secure', TEMPORAL_CONFIG_FILE: file };
 * ```
 */
export function isolatedEnv(scratch: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && !name.startsWith('TEMPORAL_') && !name.startsWith('OTEL_')) env[name] = value;
  }
  env.XDG_CONFIG_HOME = join(scratch, 'no-config');
  return env;
}
