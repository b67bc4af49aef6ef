export { S3BlobStore, type S3BlobStoreOptions } from './s3-blob-store.js';
