import { z } from 'zod';
import { EvidenceError } from './evidence-error.js';
import { parseStoredJson } from './schemas.js';

/**
 * One JSON value per line; throws `INVALID_ARTIFACT` naming the entry that cannot be stored.
 *
 * @example
 * ```ts
 * serializeThread([{ role: 'user', content: 'hi' }]); // '{"role":"user","content":"hi"}\n'
 * ```
 */
export function serializeThread(entries: readonly unknown[]): string {
  if (!Array.isArray(entries))
    throw new EvidenceError('INVALID_ARTIFACT', 'thread must be an array of entries');
  return entries
    .map((entry, index) => {
      let line: string | undefined;
      try {
        line = JSON.stringify(entry);
      } catch (error) {
        throw new EvidenceError('INVALID_ARTIFACT', `thread entry ${index} cannot be serialized as JSON`, {
          cause: error,
        });
      }
      if (line === undefined) {
        throw new EvidenceError('INVALID_ARTIFACT', `thread entry ${index} is not a JSON value`);
      }
      return `${line}\n`;
    })
    .join('');
}

/**
 * Reads JSONL written by {@link serializeThread}; a malformed line is a `CORRUPT_ARTIFACT`
 * error naming its line number.
 *
 * @example
 * ```ts
 * parseThread('{"role":"user"}\n', 'w1/thread.jsonl'); // [{ role: 'user' }]
 * ```
 */
export function parseThread(text: string, what: string): unknown[] {
  return text
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line, index) => parseStoredJson(z.unknown(), line, `${what} line ${index + 1}`));
}
