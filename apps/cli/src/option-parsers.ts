import { durationSchema, parseAge, parseSize } from '@wharf/orchestrator';
import { InvalidArgumentError } from 'commander';
import { CliError } from './cli-error.js';

/**
 * A commander argument parser for a whole number in `[min, max]`; anything else is refused
 * with a message naming the option, so the command exits 2 before doing anything.
 *
 * @example
 * ```ts
 * new Option('--limit <n>').argParser(integerIn('--limit', 1, 1000));
 * ```
 */
export function integerIn(option: string, min: number, max: number): (value: string) => number {
  return (value) => {
    const number = /^[+-]?\d+$/.test(value.trim()) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(number) || number < min || number > max) {
      const range =
        max === Number.MAX_SAFE_INTEGER
          ? `an integer of at least ${min}`
          : `an integer from ${min} to ${max}`;
      throw new InvalidArgumentError(`${option} must be ${range}, got "${value}".`);
    }
    return number;
  };
}

/**
 * A commander argument parser for a duration (`500ms`, `2s`, `10m`, `1h`, or milliseconds),
 * returning milliseconds; anything else is refused with a message naming the option.
 *
 * @example
 * ```ts
 * new Option('--wait-for-inputs <duration>').argParser(durationIn('--wait-for-inputs'));
 * ```
 */
export function durationIn(option: string): (value: string) => number {
  return (value) => {
    const parsed = durationSchema.safeParse(/^\d+$/.test(value.trim()) ? Number(value) : value.trim());
    if (!parsed.success) {
      throw new InvalidArgumentError(
        `${option} must be a duration such as 500ms, 30s, 10m or 1h, got "${value}".`,
      );
    }
    return parsed.data;
  };
}

/**
 * A commander argument parser for an age (`30s`, `15m`, `12h`, `7d`, `2w`) in milliseconds.
 *
 * @example
 * ```ts
 * new Option('--older-than <age>').argParser(age('--older-than'));
 * ```
 */
export function age(option: string): (value: string) => number {
  return (value) => usage(() => parseAge(value, option));
}

/**
 * A commander argument parser for a size (`1048576`, `512MiB`, `10GB`) in bytes.
 *
 * @example
 * ```ts
 * new Option('--max-bytes <size>').argParser(size('--max-bytes'));
 * ```
 */
export function size(option: string): (value: string) => number {
  return (value) => usage(() => parseSize(value, option));
}

function usage(parse: () => number): number {
  try {
    return parse();
  } catch (error) {
    throw new InvalidArgumentError(`${(error as Error).message}.`);
  }
}

/**
 * The tool names of `--tools a,b` (or `WHARF_TOOLS` when the option is not given): the tools
 * registered with the workers that will run the swarm, which an agent's `tools` may name.
 * Neither given: undefined (the workers' tools are not known; see `parseSwarm`). A name with
 * characters a tool name cannot have is refused, naming where it came from.
 *
 * @example
 * ```ts
 * toolNames('lookup, files_read', undefined); // ['lookup', 'files_read']
 * toolNames(undefined, 'lookup'); // ['lookup'] (from WHARF_TOOLS)
 * ```
 */
export function toolNames(option: string | undefined, env: string | undefined): string[] | undefined {
  const value = option ?? env;
  if (value === undefined) return undefined;
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const bad = names.find((name) => !/^[A-Za-z0-9_.-]+$/.test(name));
  if (bad !== undefined) {
    throw new CliError(
      'USAGE',
      `${option === undefined ? 'WHARF_TOOLS' : '--tools'} must be tool names separated by commas, got "${bad}".`,
    );
  }
  return names;
}

/**
 * A commander argument parser for an http(s) URL, returned without a trailing slash; anything
 * else is refused with a message naming the option.
 *
 * @example
 * ```ts
 * new Option('--ui-url <url>').argParser(httpUrl('--ui-url')); // 'http://ui:8233/' → 'http://ui:8233'
 * ```
 */
export function httpUrl(option: string): (value: string) => string {
  return (value) => {
    const url = URL.canParse(value) ? new URL(value) : undefined;
    if (url === undefined || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      throw new InvalidArgumentError(
        `${option} must be an http(s) URL such as http://127.0.0.1:8233, got "${value}".`,
      );
    }
    return value.replace(/\/+$/, '');
  };
}
