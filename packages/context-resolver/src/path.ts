import { InvalidExpressionError } from './context-resolver-error.js';

/**
 * The marker that starts a variable reference: `†kind.path`.
 *
 * @example
 * ```ts
 * const reference = `${REFERENCE_MARKER}data.user.name`;
 * ```
 */
export const REFERENCE_MARKER = '†';

/**
 * A parsed variable reference `†<kind>.<path>`: `kind` selects messages whose `type` equals it,
 * `path` is the list of keys (array indices are written as numbers, e.g. `users.0.name`).
 *
 * @example
 * ```ts
 * const reference: Reference = { kind: 'state', path: ['users', '0', 'name'] }; // †state.users.0.name
 * ```
 */
export interface Reference {
  readonly kind: string;
  readonly path: readonly string[];
}

const unicodeKeyChar = /^[\p{L}\p{N}]$/u;

/** True for a character allowed in a key: letters, digits, `_`, `$`, `-` (ASCII fast path). */
function isKeyChar(code: number, text: string, position: number): boolean {
  if (code < 128) {
    return (
      (code >= 97 && code <= 122) ||
      (code >= 65 && code <= 90) ||
      (code >= 48 && code <= 57) ||
      code === 95 ||
      code === 36 ||
      code === 45
    );
  }
  const point = text.codePointAt(position) ?? 0;
  return unicodeKeyChar.test(String.fromCodePoint(point));
}

/** True when a kind name may start at `position`: a letter or `_`. */
function isKindStart(text: string, position: number): boolean {
  const code = text.charCodeAt(position);
  if (Number.isNaN(code)) return false;
  if (code < 128) return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || code === 95;
  return /^\p{L}/u.test(text.slice(position, position + 2));
}

/** Position after the run of key characters starting at `position`. */
function keyRunEnd(text: string, position: number): number {
  let cursor = position;
  while (cursor < text.length && isKeyChar(text.charCodeAt(cursor), text, cursor)) {
    cursor += (text.codePointAt(cursor) ?? 0) > 0xffff ? 2 : 1;
  }
  return cursor;
}

/** Result of {@link scanReference}: the reference and the position just after it. */
export interface ScannedReference {
  reference: Reference;
  end: number;
}

/**
 * Reads one reference starting at `start` (which must hold `†`). With `lenient` a trailing `.`
 * not followed by a key ends the reference instead of being an error (for references embedded in
 * prose, e.g. `"Hello †data.user.name."`).
 *
 * @example
 * ```ts
 * scanReference('†data.user.name || †state.x', 0); // { reference: { kind: 'data', path: ['user', 'name'] }, end: 15 }
 * ```
 */
export function scanReference(text: string, start: number, lenient = false): ScannedReference {
  if (text[start] !== REFERENCE_MARKER) fail(text, start, `'${REFERENCE_MARKER}'`);
  const kindBegin = start + 1;
  if (!isKindStart(text, kindBegin)) fail(text, kindBegin, 'a kind name (letter or _)');
  let position = keyRunEnd(text, kindBegin);
  const kind = text.slice(kindBegin, position);
  const path: string[] = [];
  while (text.charCodeAt(position) === 46 /* . */) {
    const segmentBegin = position + 1;
    const cursor = keyRunEnd(text, segmentBegin);
    if (cursor === segmentBegin) {
      if (lenient) break;
      fail(text, segmentBegin, 'a key after "."');
    }
    path.push(text.slice(segmentBegin, cursor));
    position = cursor;
  }
  return { reference: { kind, path }, end: position };
}

/**
 * Parses a whole string as one reference, e.g. `†state.users.0.name`.
 *
 * @example
 * ```ts
 * parseReference('†state.users.0.name'); // { kind: 'state', path: ['users', '0', 'name'] }
 * ```
 */
export function parseReference(text: string): Reference {
  const { reference, end } = scanReference(text, 0);
  if (end !== text.length) fail(text, end, 'end of reference');
  return reference;
}

/**
 * Parses a dot path without marker or kind (`''` is the root).
 *
 * @example
 * ```ts
 * parsePath('user.tags.0'); // ['user', 'tags', '0']
 * ```
 */
export function parsePath(text: string): string[] {
  if (text === '') return [];
  return [...parseReference(`${REFERENCE_MARKER}x.${text}`).path];
}

/**
 * Formats a reference back to its `†kind.path` text.
 *
 * @example
 * ```ts
 * formatReference({ kind: 'data', path: ['user', 'name'] }); // '†data.user.name'
 * ```
 */
export function formatReference(reference: Reference): string {
  const suffix = reference.path.length === 0 ? '' : `.${reference.path.join('.')}`;
  return `${REFERENCE_MARKER}${reference.kind}${suffix}`;
}

/**
 * True when `segment` addresses an array element (`0`, `1`, … without leading zeros).
 *
 * @example
 * ```ts
 * isArrayIndex('3'); // true
 * isArrayIndex('03'); // false
 * ```
 */
export function isArrayIndex(segment: string): boolean {
  return /^(?:0|[1-9][0-9]{0,8})$/.test(segment);
}

function fail(text: string, position: number, expected: string): never {
  throw new InvalidExpressionError({ expression: text, position, expected, code: 'INVALID_PATH' });
}
