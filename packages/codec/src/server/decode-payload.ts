import type { Payload, PayloadCodec } from '@temporalio/common';
import { CodecError } from '../codec-error.js';
import { encryptedPayloadKeyId, isEncryptedPayload } from '../encryption-codec.js';
import { ForbiddenReferenceError, ReferenceUnavailableError } from '../errors.js';
import { textBytes } from '../metadata.js';
import { cutForDisplay } from './display-cut.js';
import { type ExternalReference, externalReferenceOf, referenceId } from './external-reference.js';

/**
 * What a reference resolved to: the payload stored behind it, the owner it was stored for, and
 * the output id `wharf outputs show` reads it by.
 *
 * @example
 * ```ts
 * const resolved: ResolvedReference = { ownerId: 'team-a', payload, outId: 'out_AAAAAAAAAAAAAAAA' };
 * ```
 */
export interface ResolvedReference {
  ownerId: string;
  payload: Payload;
  outId?: string;
}

/**
 * Resolves an External Storage reference from the data plane, for the owner the codec server
 * serves (the caller wires the store; it may refuse other owners itself, and the server checks
 * the owner it returns again).
 *
 * @example
 * ```ts
 * const resolveReference: ReferenceResolver = async (reference, ownerId) => {
 *   const { record, body } = await store.get({ outId: reference.claimData.outId ?? '' });
 *   return { ownerId: record.producer.ownerId, payload: Payload.decode(body), outId: record.outId };
 * };
 * ```
 */
export type ReferenceResolver = (
  reference: ExternalReference,
  ownerId: string,
  context: { signal: AbortSignal },
) => Promise<ResolvedReference>;

/** Whether a reference stored for `referenceOwner` may be read by the served owner. */
export type OwnerRule = (referenceOwner: string, servedOwner: string) => boolean;

/** What the server logs of one payload: ids and outcome, never contents. */
export interface PayloadTrace {
  index: number;
  keyIds: string[];
  references: string[];
  outcome: 'decoded' | 'unchanged' | 'cut' | CodecError['code'];
  cutBytes?: number;
}

/** What {@link decodeForDisplay} needs besides the payload. */
export interface DisplayDecoding {
  codec: PayloadCodec;
  ownerId: string | undefined;
  resolveReference: ReferenceResolver | undefined;
  ownerRule: OwnerRule;
  limitBytes: number;
  signal: AbortSignal;
}

/** A payload may be encrypted, a reference to an encrypted payload, and so on: at most this many steps. */
const maxSteps = 6;

/**
 * Decodes one payload for a person to read: decrypts it, resolves the External Storage
 * reference it is (for the served owner only), decrypts what that held, and cuts the result to
 * the display limit. A payload it cannot open becomes a `json/plain` string saying why
 * (`[wharf codec] CODEC_UNKNOWN_KEY: …`, naming the key id or reference), with the code in its
 * metadata (`wharf-codec-error`): one bad payload does not hide the others of its request.
 *
 * @example
 * ```ts
 * const { payload, trace } = await decodeForDisplay(wire, 0, { codec, ownerId, resolveReference, ownerRule, limitBytes, signal });
 * ```
 */
export async function decodeForDisplay(
  input: Payload,
  index: number,
  decoding: DisplayDecoding,
): Promise<{ payload: Payload; trace: PayloadTrace }> {
  const trace: PayloadTrace = { index, keyIds: [], references: [], outcome: 'unchanged' };
  let current = input;
  let outId: string | undefined;
  try {
    for (let step = 0; step < maxSteps; step += 1) {
      if (isEncryptedPayload(current)) {
        trace.keyIds.push(encryptedPayloadKeyId(current) ?? '?');
        current = (await decoding.codec.decode([current]))[0] as Payload;
        continue;
      }
      const reference = externalReferenceOf(current);
      if (reference === undefined) break;
      const id = referenceId(reference);
      trace.references.push(id);
      const resolved = await resolve(reference, id, decoding);
      current = resolved.payload;
      outId = resolved.outId ?? reference.claimData.outId;
    }
    if (current !== input) trace.outcome = 'decoded';
    const cut = cutForDisplay(current, { limitBytes: decoding.limitBytes, outId });
    if (cut.cutBytes > 0) {
      trace.outcome = 'cut';
      trace.cutBytes = cut.cutBytes;
    }
    return { payload: cut.payload, trace };
  } catch (error) {
    const failure = CodecError.isInstance(error)
      ? error
      : new CodecError('CODEC_INVALID_PAYLOAD', 'cannot decode');
    trace.outcome = failure.code;
    return { payload: errorPayload(failure), trace };
  }
}

async function resolve(
  reference: ExternalReference,
  id: string,
  decoding: DisplayDecoding,
): Promise<ResolvedReference> {
  const { ownerId, resolveReference } = decoding;
  if (resolveReference === undefined || ownerId === undefined)
    throw new ReferenceUnavailableError(id, 'this codec server resolves no references');
  let resolved: ResolvedReference;
  try {
    resolved = await resolveReference(reference, ownerId, { signal: decoding.signal });
  } catch (error) {
    if (CodecError.isInstance(error)) throw error;
    // The resolver's own message is not passed on: it is the data plane's, not the reader's.
    throw new ReferenceUnavailableError(id, 'the data plane did not return it', { cause: error });
  }
  if (!decoding.ownerRule(resolved.ownerId, ownerId)) throw new ForbiddenReferenceError(id, ownerId);
  return resolved;
}

function errorPayload(error: CodecError): Payload {
  return {
    metadata: { encoding: textBytes('json/plain'), 'wharf-codec-error': textBytes(error.code) },
    data: textBytes(JSON.stringify(`[wharf codec] ${error.code}: ${error.message}`)),
  };
}
