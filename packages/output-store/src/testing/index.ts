export {
  type BlobContractContext,
  type BlobStoreFactory,
  runBlobStoreContract,
} from './blob-store-contract.js';
export { type ContractContext, type ContractHarness, createContractHarness } from './contract-context.js';
export { injectedS3Connection } from './injected-s3-connection.js';
export { type OutputStoreFactory, runOutputStoreContract } from './output-store-contract.js';
export {
  createPostgresDatabase,
  type PostgresDatabase,
} from './postgres-database.js';
export {
  type PostgresServer,
  type PostgresServerOptions,
  startPostgresServer,
} from './postgres-server.js';
export {
  createS3Bucket,
  findVersitygw,
  type S3Connection,
  type S3Server,
  type StartS3ServerOptions,
  startS3Server,
} from './s3-server.js';
export { runStreamContract } from './stream-contract.js';
