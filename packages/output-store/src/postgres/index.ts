export { latestPostgresSchemaVersion } from './migrations.js';
export { PostgresOutputStore, type PostgresOutputStoreOptions } from './postgres-output-store.js';
