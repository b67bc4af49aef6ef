export { checkDataPlane, type DataPlaneCheck } from './check-data-plane.js';
export { BackendMissingError, InvalidStoreUrlError } from './config-errors.js';
export { describeBlobs, describeStore } from './describe-data-plane.js';
export {
  assertUsablePlane,
  type DataPlane,
  type OpenDataPlaneOptions,
  openDataPlane,
  s3OptionsFrom,
} from './open-data-plane.js';
export { type BlobsConfig, parseBlobsUrl } from './parse-blobs-url.js';
export { parseStoreUrl, type StoreConfig } from './parse-store-url.js';
export { type DataPlaneEnv, dataPlaneEnvSchema, s3BucketSchema, s3QuerySchema } from './schemas.js';
