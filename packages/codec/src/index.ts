export { CodecError, type CodecErrorCode } from './codec-error.js';
export {
  createEncryptionCodec,
  ENCRYPTED_ENCODING,
  ENCRYPTION_CIPHER,
  ENCRYPTION_KEY_ID,
  type EncryptionCodecOptions,
  encryptedPayloadKeyId,
  isEncryptedPayload,
} from './encryption-codec.js';
export {
  ForbiddenReferenceError,
  InvalidCodecOptionError,
  InvalidEncryptedPayloadError,
  InvalidKeyRingError,
  PayloadAuthenticationError,
  ReferenceUnavailableError,
  UnknownKeyIdError,
  UnsafeBindError,
} from './errors.js';
export {
  codecNonRetryableErrorTypes,
  encryptedDataConverter,
  encryptedFailureConverter,
} from './failure-converter.js';
export { KeyRing, type KeyRingEntry } from './key-ring.js';
export { codecEnvNames, type LoadKeyRingOptions, loadKeyRing, parseKeyRing } from './load-key-ring.js';
export { codecEnvSchema, type KeyFile, keyFileSchema } from './schemas.js';
