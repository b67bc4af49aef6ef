import {
  ApplicationFailure,
  DefaultFailureConverter,
  type FailureConverter,
  type PayloadCodec,
  type PayloadConverter,
  type ProtoFailure,
  type SerializationContext,
} from '@temporalio/common';
import { CodecError } from './codec-error.js';
import { createEncryptionCodec } from './encryption-codec.js';
import type { KeyRing } from './key-ring.js';

/**
 * Temporal's default failure converter with `encodeCommonAttributes: true`: a failure's
 * message and stack trace move into its encoded attributes, a payload the codecs encrypt, and
 * history keeps only the placeholder message `Encoded failure`. One kind stays readable: the
 * failure of a payload the codec could not open (an activity whose input is under an unknown
 * key, a workflow task that cannot decode its activation). Its message names a key id and
 * nothing else, and it must be read without the key it lacks: history and the Web UI show it
 * as it is.
 *
 * @example
 * ```ts
 * const dataConverter = { payloadCodecs: [codec], failureConverter: encryptedFailureConverter() };
 * ```
 */
export function encryptedFailureConverter(): FailureConverter {
  return new EncryptedFailureConverter();
}

class EncryptedFailureConverter extends DefaultFailureConverter {
  constructor() {
    super({ encodeCommonAttributes: true });
  }

  override errorToFailure(
    err: unknown,
    payloadConverter: PayloadConverter,
    context?: SerializationContext,
  ): ProtoFailure {
    return isCodecFailure(err)
      ? this.errorToFailureInner(err, payloadConverter, context)
      : super.errorToFailure(err, payloadConverter, context);
  }
}

/** A codec error, or the activity failure the worker made of one (typed by its class name). */
function isCodecFailure(err: unknown): boolean {
  if (CodecError.isInstance(err)) return true;
  return (
    err instanceof ApplicationFailure &&
    err.type !== undefined &&
    err.type !== null &&
    codecNonRetryableErrorTypes.includes(err.type)
  );
}

/**
 * The two parts of a Temporal data converter that encryption needs, for the client, the worker
 * and every other process that reads or writes the same workflows: the encryption codec and the
 * failure converter that encodes messages and stacks. Merge it into a data converter of your own
 * (with External Storage, the SDK encrypts first and stores the ciphertext: see the README).
 *
 * @example
 * ```ts
 * const keyRing = await loadKeyRing({ env: process.env });
 * const client = new Client({ connection, dataConverter: keyRing ? encryptedDataConverter({ keyRing }) : {} });
 * ```
 */
export function encryptedDataConverter(options: { keyRing: KeyRing }): {
  payloadCodecs: PayloadCodec[];
  failureConverter: FailureConverter;
} {
  return { payloadCodecs: [createEncryptionCodec(options)], failureConverter: encryptedFailureConverter() };
}

/**
 * The error types a codec throws for a payload it cannot open (its class names, which the
 * worker gives the activity failure): put them in an activity retry policy's
 * `nonRetryableErrorTypes`, so an activity whose input is under an unknown key or fails
 * authentication fails at once, naming the key id, instead of retrying until its timeout.
 *
 * @example
 * ```ts
 * proxyActivities({ retry: { nonRetryableErrorTypes: [...codecNonRetryableErrorTypes] } });
 * ```
 */
export const codecNonRetryableErrorTypes: readonly string[] = [
  'UnknownKeyIdError',
  'PayloadAuthenticationError',
  'InvalidEncryptedPayloadError',
];
