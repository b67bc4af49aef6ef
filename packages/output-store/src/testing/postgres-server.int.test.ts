import { existsSync } from 'node:fs';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { startPostgresServer } from './postgres-server.js';

describe('startPostgresServer', () => {
  it('starts a server that takes connections, and stop() shuts it down and removes its folder', async () => {
    const server = await startPostgresServer({ settings: { fsync: 'off' } });
    expect(server.url).toMatch(/^postgresql:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/);
    expect(server.version).toMatch(/PostgreSQL/);
    const client = new pg.Client({ connectionString: server.url });
    await client.connect();
    expect((await client.query('SHOW fsync')).rows[0]).toEqual({ fsync: 'off' });
    await client.end();
    await server.stop();
    expect(existsSync(server.dataDir)).toBe(false);
    const late = new pg.Client({ connectionString: server.url, connectionTimeoutMillis: 2000 });
    await expect(late.connect()).rejects.toThrow();
  });

  it('refuses a binaries folder that was named explicitly but holds none, naming it', async () => {
    await expect(
      startPostgresServer({ env: { ...process.env, WHARF_PG_BINDIR: '/nonexistent/bin' } }),
    ).rejects.toMatchObject({
      code: 'STORAGE_FAILURE',
      message: expect.stringContaining('WHARF_PG_BINDIR /nonexistent/bin'),
    });
  });

  it('starts with a PATH that lacks the sbin folders, as CI shells and cron jobs have', async () => {
    const server = await startPostgresServer({
      env: { ...process.env, PATH: '/usr/local/bin:/usr/bin:/bin' },
    });
    try {
      const client = new pg.Client({ connectionString: server.url });
      await client.connect();
      expect((await client.query('SELECT 1 AS one')).rows[0]).toEqual({ one: 1 });
      await client.end();
    } finally {
      await server.stop();
    }
  });
});
