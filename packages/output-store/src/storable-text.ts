import { z } from 'zod';

/** A NUL, or a UTF-16 surrogate that is not half of a pair (`\p{Cs}` with the `u` flag). */
const unstorable = /\0|\p{Cs}/u;

/**
 * Why `text` cannot be stored as a name, id, key or label, or `undefined` when it can. Every
 * backend must refuse the same texts: PostgreSQL `text` and `jsonb` hold no NUL and no lone
 * surrogate, so the store refuses them up front, whichever database it runs on, rather than
 * failing in the driver.
 *
 * @example
 * ```ts
 * unstorableReason('run\u0000x'); // 'must not contain a NUL character'
 * unstorableReason('\ud800'); // 'must be well-formed Unicode (no lone surrogate)'
 * unstorableReason('run-1'); // undefined
 * ```
 */
export function unstorableReason(text: string): string | undefined {
  const found = unstorable.exec(text);
  if (found === null) return undefined;
  return found[0] === '\0'
    ? 'must not contain a NUL character'
    : 'must be well-formed Unicode (no lone surrogate)';
}

/**
 * A zod string schema of `min`..`max` characters that refuses what {@link unstorableReason}
 * refuses, for every id, key, name and label the HTTP intake and the spawn tokens carry.
 *
 * @example
 * ```ts
 * const runId = storableText(1, 256);
 * runId.safeParse('run\u0000').success; // false
 * ```
 */
export function storableText(min: number, max: number) {
  return z
    .string()
    .min(min)
    .max(max)
    .superRefine((value, context) => {
      const reason = unstorableReason(value);
      if (reason !== undefined) context.addIssue({ code: 'custom', message: reason });
    });
}
