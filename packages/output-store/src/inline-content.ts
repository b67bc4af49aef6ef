import { InvalidOutputEventError } from './errors.js';
import type { ContentRef } from './types.js';

/**
 * The media type a body gets when the event names none.
 *
 * @example
 * ```ts
 * defaultContentType({ kind: 'json', value: 1 }); // 'application/json'
 * ```
 */
export function defaultContentType(content: ContentRef): string {
  if (content.kind === 'text') return 'text/plain; charset=utf-8';
  if (content.kind === 'json') return 'application/json';
  return 'application/octet-stream';
}

/**
 * The bytes of inline content (`text`, `json`, `bytes`); `undefined` for `file` and `stream`.
 *
 * @example
 * ```ts
 * inlineBytes({ kind: 'text', text: 'hi' }); // Uint8Array [104, 105]
 * ```
 */
export function inlineBytes(content: ContentRef): Uint8Array | undefined {
  switch (content.kind) {
    case 'text':
      return Buffer.from(content.text, 'utf8');
    case 'json': {
      let text: string | undefined;
      try {
        text = JSON.stringify(content.value);
      } catch (error) {
        throw new InvalidOutputEventError('content.value', `is not serialisable as JSON (${String(error)})`);
      }
      if (text === undefined)
        throw new InvalidOutputEventError('content.value', 'is not serialisable as JSON');
      return Buffer.from(text, 'utf8');
    }
    case 'bytes':
      return content.bytes;
    default:
      return undefined;
  }
}
