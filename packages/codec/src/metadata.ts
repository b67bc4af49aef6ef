import type { Payload } from '@temporalio/common';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * The UTF-8 bytes of a metadata value.
 *
 * @example
 * ```ts
 * const metadata = { encoding: textBytes('json/plain') };
 * ```
 */
export function textBytes(text: string): Uint8Array {
  return encoder.encode(text);
}

/**
 * A payload's metadata value as text, or `undefined` when it has none under `key`.
 *
 * @example
 * ```ts
 * metadataText(payload, 'encoding'); // 'json/plain'
 * ```
 */
export function metadataText(payload: Payload, key: string): string | undefined {
  const value = payload.metadata?.[key];
  return value === undefined || value === null ? undefined : decoder.decode(value);
}
