import { randomBytes } from 'node:crypto';
import {
  ApplicationFailure,
  defaultPayloadConverter,
  type Payload,
  type PayloadCodec,
} from '@temporalio/common';
import proto from '@temporalio/proto';
import { describe, expect, it } from 'vitest';
import { UnknownKeyIdError } from './errors.js';
import { codecNonRetryableErrorTypes, encryptedDataConverter } from './failure-converter.js';
import { KeyRing } from './key-ring.js';

const secret = 'planted-secret-in-a-stack-91c2';

describe('encryptedDataConverter', () => {
  it("moves a failure's message and stack into an attribute payload the codec encrypts", async () => {
    const { payloadCodecs, failureConverter } = encryptedDataConverter({
      keyRing: KeyRing.from([{ id: 'k1', key: randomBytes(32) }]),
    });
    const failure = failureConverter.errorToFailure(
      new Error(`script failed: ${secret}`),
      defaultPayloadConverter,
    );
    expect(failure.message).toBe('Encoded failure');
    expect(failure.stackTrace).toBe('');
    const attributes = failure.encodedAttributes as Payload;
    const codec = payloadCodecs[0] as PayloadCodec;
    const [encrypted] = (await codec.encode([attributes])) as [Payload];
    const bytes = proto.temporal.api.failure.v1.Failure.encode({
      ...failure,
      encodedAttributes: encrypted,
    }).finish();
    expect(Buffer.from(bytes).includes(secret)).toBe(false);
    const [decrypted] = (await codec.decode([encrypted])) as [Payload];
    const restored = failureConverter.failureToError(
      { ...failure, encodedAttributes: decrypted },
      defaultPayloadConverter,
    );
    expect(restored.message).toContain(secret);
  });

  it("keeps a codec failure's message readable: it names the key id the reader lacks, nothing secret", () => {
    const { failureConverter } = encryptedDataConverter({
      keyRing: KeyRing.from([{ id: 'k1', key: randomBytes(32) }]),
    });
    const direct = failureConverter.errorToFailure(new UnknownKeyIdError('k0'), defaultPayloadConverter);
    expect(direct.message).toContain('"k0"');
    expect(direct.encodedAttributes).toBeFalsy();
    // What the worker makes of an activity input it cannot decode.
    const activity = ApplicationFailure.fromError(new UnknownKeyIdError('k0'), {
      message: 'Failed to parse activity args for activity runSubagent: under key id "k0"',
      nonRetryable: false,
    });
    const failure = failureConverter.errorToFailure(activity, defaultPayloadConverter);
    expect(failure.message).toContain('"k0"');
    expect(failure.applicationFailureInfo?.type).toBe('UnknownKeyIdError');
    // Any other failure, even wrapping one, is encoded.
    const wrapped = failureConverter.errorToFailure(
      new Error(`${secret}`, { cause: new UnknownKeyIdError('k0') }),
      defaultPayloadConverter,
    );
    expect(wrapped.message).toBe('Encoded failure');
    expect(wrapped.cause?.message).toContain('"k0"');
  });

  it('names the error classes a retry policy should not retry by their Temporal failure type', () => {
    const failure = ApplicationFailure.fromError(new UnknownKeyIdError('k0'), { nonRetryable: false });
    expect(codecNonRetryableErrorTypes).toContain(failure.type);
  });
});
