import { type PostgresServer, startPostgresServer } from '@wharf/output-store/testing';

/**
 * Starts a throwaway PostgreSQL server (`initdb` + `pg_ctl` from `WHARF_PG_BINDIR`,
 * `pg_config --bindir` or `/usr/lib/postgresql/<version>/bin`) on a free loopback port, with
 * its unix socket and data in a temp folder; run as root it runs as the `postgres` user.
 * `stop()` shuts it down and removes the folder. The same code the benchmarks use.
 *
 * @example
 * ```ts
 * const { url, stop } = await startPostgres();
 * ```
 */
export function startPostgres(): Promise<PostgresServer> {
  // Throwaway data: no fsync, so a shared machine's disk is not the bottleneck of the tests.
  return startPostgresServer({
    settings: { fsync: 'off', synchronous_commit: 'off', full_page_writes: 'off' },
  });
}
