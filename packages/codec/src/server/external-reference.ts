import type { Payload } from '@temporalio/common';
import { z } from 'zod';
import { metadataText } from '../metadata.js';

const referenceMessageType = 'temporal.api.sdk.v1.ExternalStorageReference';

const referenceSchema = z.object({
  driverName: z.string().min(1),
  claimData: z.record(z.string(), z.string()).default({}),
});

/**
 * An External Storage reference as Temporal writes it into history in place of an offloaded
 * payload: the driver's name and its claim (for Wharf's output-store driver, `outId` and
 * `sha256`).
 *
 * @example
 * ```ts
 * const reference: ExternalReference = { driverName: 'wharf-output-store', claimData: { outId, sha256 } };
 * ```
 */
export interface ExternalReference {
  readonly driverName: string;
  readonly claimData: Readonly<Record<string, string>>;
}

/**
 * The External Storage reference a payload is (`json/protobuf` of
 * `temporal.api.sdk.v1.ExternalStorageReference`), or `undefined` for any other payload.
 *
 * @example
 * ```ts
 * const reference = externalReferenceOf(payload);
 * if (reference) console.log(reference.claimData.outId);
 * ```
 */
export function externalReferenceOf(payload: Payload): ExternalReference | undefined {
  if (metadataText(payload, 'encoding') !== 'json/protobuf') return undefined;
  if (metadataText(payload, 'messageType') !== referenceMessageType) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(new TextDecoder().decode(payload.data ?? new Uint8Array()));
  } catch {
    return undefined;
  }
  const parsed = referenceSchema.safeParse(value);
  return parsed.success ? parsed.data : undefined;
}

/**
 * How logs and answers name a reference: its `outId`, else its driver and claim keys.
 *
 * @example
 * ```ts
 * referenceId({ driverName: 'wharf-output-store', claimData: { outId: 'out_x' } }); // 'out_x'
 * ```
 */
export function referenceId(reference: ExternalReference): string {
  return reference.claimData.outId ?? `${reference.driverName}:${Object.keys(reference.claimData).join('+')}`;
}
