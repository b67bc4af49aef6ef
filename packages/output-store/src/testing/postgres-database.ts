import { randomBytes } from 'node:crypto';

/**
 * A database of its own on a shared test server.
 *
 * @example
 * ```ts
 * const database: PostgresDatabase = await createPostgresDatabase(serverUrl, 'crash');
 * await database.drop();
 * ```
 */
export interface PostgresDatabase {
  /** Connection string of the new database. */
  readonly url: string;
  readonly name: string;
  /** Drops the database, ending any connection still open to it. */
  drop(): Promise<void>;
}

/**
 * Creates a fresh database (`wharf_<label>_<random>`) on the server at `serverUrl`, so each
 * test file works in isolation on one shared server. Needs the `pg` driver.
 *
 * @example
 * ```ts
 * const database = await createPostgresDatabase(inject('postgresUrl'), 'contract');
 * const store = await PostgresOutputStore.open({ connectionString: database.url, blobs });
 * ```
 */
export async function createPostgresDatabase(serverUrl: string, label = 'test'): Promise<PostgresDatabase> {
  const { default: pg } = await import('pg');
  const name = `wharf_${label.toLowerCase().replace(/[^a-z0-9_]/g, '_')}_${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: async () => {
      const client = new pg.Client({ connectionString: serverUrl });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
