export { OutputStoreError, type OutputStoreErrorCode } from './output-store-error.js';
