import type { Payload } from '@temporalio/common';
import { z } from 'zod';

const base64 = z.string().regex(/^[A-Za-z0-9+/]*={0,2}$/, 'is not base64');

/**
 * The body of a Codec Server request and answer (Temporal's JSON form of payloads): metadata
 * values and data are base64 strings.
 *
 * @example
 * ```ts
 * wirePayloadsSchema.parse({ payloads: [{ metadata: { encoding: 'anNvbi9wbGFpbg==' }, data: 'IjEi' }] });
 * ```
 */
export const wirePayloadsSchema = z.object({
  payloads: z.array(
    z.object({
      metadata: z.record(z.string(), base64).optional(),
      data: base64.optional(),
    }),
  ),
});

/** A Codec Server request or answer body. */
export type WirePayloads = z.infer<typeof wirePayloadsSchema>;
/** One payload of a {@link WirePayloads}. */
export type WirePayload = WirePayloads['payloads'][number];

/**
 * A payload read from its JSON form.
 *
 * @example
 * ```ts
 * const payload = fromWirePayload({ metadata: { encoding: 'anNvbi9wbGFpbg==' }, data: 'IjEi' });
 * ```
 */
export function fromWirePayload(wire: WirePayload): Payload {
  const metadata: Record<string, Uint8Array> = {};
  for (const [key, value] of Object.entries(wire.metadata ?? {}))
    metadata[key] = new Uint8Array(Buffer.from(value, 'base64'));
  return { metadata, data: new Uint8Array(Buffer.from(wire.data ?? '', 'base64')) };
}

/**
 * A payload's JSON form.
 *
 * @example
 * ```ts
 * const wire = toWirePayload({ metadata: { encoding: textBytes('json/plain') }, data: textBytes('"1"') });
 * ```
 */
export function toWirePayload(payload: Payload): WirePayload {
  const metadata: Record<string, string> = {};
  for (const [key, value] of Object.entries(payload.metadata ?? {}))
    if (value !== null && value !== undefined) metadata[key] = Buffer.from(value).toString('base64');
  return { metadata, data: Buffer.from(payload.data ?? new Uint8Array()).toString('base64') };
}
