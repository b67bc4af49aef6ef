import { codeGuard } from '@wharf/common';
import { CodecError } from './codec-error.js';

/**
 * A payload is encrypted under a key id the key ring does not hold (a key retired too early,
 * or a worker or codec server given another ring).
 *
 * @example
 * ```ts
 * throw new UnknownKeyIdError('k0'); // "payload encrypted under key id "k0", which this key ring does not hold"
 * ```
 */
export class UnknownKeyIdError extends CodecError {
  readonly keyId: string;
  constructor(keyId: string) {
    super(
      'CODEC_UNKNOWN_KEY',
      `payload encrypted under key id "${keyId}", which this key ring does not hold`,
    );
    this.name = 'UnknownKeyIdError';
    this.keyId = keyId;
  }

  /** True for an UnknownKeyIdError from any realm. */
  static override readonly isInstance = codeGuard<UnknownKeyIdError>(CodecError, 'CODEC_UNKNOWN_KEY');
}

/**
 * A payload's ciphertext, nonce or tag does not authenticate under the key its metadata names:
 * it was altered, or a different key was given that id.
 *
 * @example
 * ```ts
 * throw new PayloadAuthenticationError('k2');
 * ```
 */
export class PayloadAuthenticationError extends CodecError {
  readonly keyId: string;
  constructor(keyId: string) {
    super(
      'CODEC_AUTH_FAILED',
      `payload under key id "${keyId}" failed authentication: it was altered, or another key holds that id`,
    );
    this.name = 'PayloadAuthenticationError';
    this.keyId = keyId;
  }

  /** True for a PayloadAuthenticationError from any realm. */
  static override readonly isInstance = codeGuard<PayloadAuthenticationError>(
    CodecError,
    'CODEC_AUTH_FAILED',
  );
}

/**
 * A key ring cannot be built: no keys, a key that is not 32 bytes of base64, a repeated or
 * malformed key id, a key file others may read. The message names the key id or the file,
 * never a key.
 *
 * @example
 * ```ts
 * throw new InvalidKeyRingError('key "k1" is 16 bytes; AES-256 needs 32');
 * ```
 */
export class InvalidKeyRingError extends CodecError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('CODEC_INVALID_KEY_RING', message, options);
    this.name = 'InvalidKeyRingError';
  }

  /** True for an InvalidKeyRingError from any realm. */
  static override readonly isInstance = codeGuard<InvalidKeyRingError>(CodecError, 'CODEC_INVALID_KEY_RING');
}

/**
 * An encrypted payload is malformed (no key id, a body too short to hold a nonce and a tag,
 * or plaintext that is not a protobuf payload).
 *
 * @example
 * ```ts
 * throw new InvalidEncryptedPayloadError('encrypted payload has no encryption-key-id');
 * ```
 */
export class InvalidEncryptedPayloadError extends CodecError {
  constructor(message: string) {
    super('CODEC_INVALID_PAYLOAD', message);
    this.name = 'InvalidEncryptedPayloadError';
  }

  /** True for an InvalidEncryptedPayloadError from any realm. */
  static override readonly isInstance = codeGuard<InvalidEncryptedPayloadError>(
    CodecError,
    'CODEC_INVALID_PAYLOAD',
  );
}

/**
 * A codec server was asked to listen beyond loopback without authentication.
 *
 * @example
 * ```ts
 * throw new UnsafeBindError('0.0.0.0');
 * ```
 */
export class UnsafeBindError extends CodecError {
  readonly host: string;
  constructor(host: string) {
    super(
      'CODEC_UNSAFE_BIND',
      `refusing to serve payloads on ${host} without authentication: bind to 127.0.0.1, or give a bearer token or an OIDC issuer`,
    );
    this.name = 'UnsafeBindError';
    this.host = host;
  }

  /** True for an UnsafeBindError from any realm. */
  static override readonly isInstance = codeGuard<UnsafeBindError>(CodecError, 'CODEC_UNSAFE_BIND');
}

/**
 * An option of the codec server is out of range or inconsistent.
 *
 * @example
 * ```ts
 * throw new InvalidCodecOptionError('maxRequestBytes', 'must be a positive integer');
 * ```
 */
export class InvalidCodecOptionError extends CodecError {
  readonly option: string;
  constructor(option: string, problem: string) {
    super('CODEC_INVALID_OPTION', `codec server option ${option} ${problem}`);
    this.name = 'InvalidCodecOptionError';
    this.option = option;
  }

  /** True for an InvalidCodecOptionError from any realm. */
  static override readonly isInstance = codeGuard<InvalidCodecOptionError>(
    CodecError,
    'CODEC_INVALID_OPTION',
  );
}

/**
 * An External Storage reference belongs to another owner than the one the codec server
 * serves: no cross-owner read through the codec.
 *
 * @example
 * ```ts
 * throw new ForbiddenReferenceError('out_AAAAAAAAAAAAAAAA', 'team-a');
 * ```
 */
export class ForbiddenReferenceError extends CodecError {
  readonly referenceId: string;
  constructor(referenceId: string, servedOwner: string) {
    super('CODEC_FORBIDDEN_REFERENCE', `reference ${referenceId} is not readable by owner ${servedOwner}`);
    this.name = 'ForbiddenReferenceError';
    this.referenceId = referenceId;
  }

  /** True for a ForbiddenReferenceError from any realm. */
  static override readonly isInstance = codeGuard<ForbiddenReferenceError>(
    CodecError,
    'CODEC_FORBIDDEN_REFERENCE',
  );
}

/**
 * An External Storage reference could not be resolved (no resolver configured, or the
 * resolver failed: the body is gone, the data plane is down).
 *
 * @example
 * ```ts
 * throw new ReferenceUnavailableError('out_AAAAAAAAAAAAAAAA', 'no resolver configured');
 * ```
 */
export class ReferenceUnavailableError extends CodecError {
  readonly referenceId: string;
  constructor(referenceId: string, reason: string, options?: { cause?: unknown }) {
    super('CODEC_REFERENCE_UNAVAILABLE', `reference ${referenceId} cannot be resolved: ${reason}`, options);
    this.name = 'ReferenceUnavailableError';
    this.referenceId = referenceId;
  }

  /** True for a ReferenceUnavailableError from any realm. */
  static override readonly isInstance = codeGuard<ReferenceUnavailableError>(
    CodecError,
    'CODEC_REFERENCE_UNAVAILABLE',
  );
}
