export { spawnEnv } from '../env-names.js';
export { TooManyUploadsError, UploadTimeoutError } from '../errors.js';
export type { Manifest } from '../manifest/manifest-format.js';
export { OutputStoreError, type OutputStoreErrorCode } from '../output-store-error.js';
export type { OutputRecord, OutputRef } from '../types.js';
export { type EmitKeyInput, emitKey } from './emit-key.js';
export { EmitRetriesExhaustedError } from './emit-retries-exhausted-error.js';
export { type EmitRetryOptions, type EmitRetryPolicy, emitRetryPolicy } from './emit-retry.js';
export {
  type EmitBody,
  type EmitMeta,
  emit,
  inputRefs,
  OutputClient,
  type OutputClientOptions,
  readInput,
} from './output-client.js';
export { UNIX_SOCKET_SCHEME, unixSocketFetch, unixSocketPath, unixSocketUrl } from './unix-socket-fetch.js';
