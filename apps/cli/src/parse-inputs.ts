import { CliError } from './cli-error.js';

/**
 * Parses repeated `--input key=value` flags. A value that reads as JSON (`3`, `true`,
 * `{"a":1}`, `"quoted"`) is taken as JSON; anything else is a string.
 *
 * @example
 * ```ts
 * parseInputs(['name=wharf', 'count=3']); // { name: 'wharf', count: 3 }
 * ```
 */
export function parseInputs(pairs: readonly string[]): Record<string, unknown> {
  const inputs: Record<string, unknown> = {};
  for (const pair of pairs) {
    const equals = pair.indexOf('=');
    if (equals <= 0) throw new CliError('USAGE', `--input expects key=value, got "${pair}"`);
    const key = pair.slice(0, equals);
    const raw = pair.slice(equals + 1);
    inputs[key] = parseValue(raw);
  }
  return inputs;
}

function parseValue(raw: string): unknown {
  if (!/^[\d\-[{"]|^(true|false|null)$/.test(raw)) return raw;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return raw;
  }
}

/**
 * Parses a byte range `a-b` (inclusive start, exclusive end; either side may be empty).
 *
 * @example
 * ```ts
 * parseRange('100-200'); // { start: 100, end: 200 }
 * parseRange('-500'); // { end: 500 }
 * ```
 */
export function parseRange(text: string): { start?: number; end?: number } {
  const match = /^(\d*)-(\d*)$/.exec(text);
  if (match === null || (match[1] === '' && match[2] === '')) {
    throw new CliError('USAGE', `--range expects a-b (bytes), got "${text}"`);
  }
  const range: { start?: number; end?: number } = {};
  if (match[1] !== '') range.start = Number(match[1]);
  if (match[2] !== '') range.end = Number(match[2]);
  if (range.start !== undefined && range.end !== undefined && range.end < range.start) {
    throw new CliError('USAGE', `--range ${text}: end is before start`);
  }
  return range;
}
