import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveDataPlane } from './data-dir.js';
import { dataPlaneIdentity } from './data-plane-identity.js';

const identityOf = (root: string, env: Record<string, string>) =>
  dataPlaneIdentity(resolveDataPlane(root, { env }));

describe('dataPlaneIdentity', () => {
  let scratch: string;
  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'wharf-identity-'));
    for (const name of ['a', 'b']) {
      await mkdir(join(scratch, name));
      await writeFile(join(scratch, name, 'outputs.db'), '');
    }
    await symlink(join(scratch, 'a'), join(scratch, 'a-link'));
  });
  afterAll(async () => {
    await rm(scratch, { recursive: true, force: true });
  });

  it('tells two SQLite data directories apart, and sees one through a symbolic link as itself', async () => {
    const a = await identityOf(join(scratch, 'a'), {});
    const b = await identityOf(join(scratch, 'b'), {});
    expect(a.id).toMatch(/^dp_[0-9a-f]{16}$/);
    expect(b.id).not.toBe(a.id);
    expect((await identityOf(join(scratch, 'a-link'), {})).id).toBe(a.id);
    // Bodies beside the SQLite file go without saying.
    expect(a.description).toBe(`store ${join(scratch, 'a', 'outputs.db')}`);
  });

  it('gives every worker of one PostgreSQL + S3 data plane the same id, whatever its data directory and credentials', async () => {
    const plane = (user: string, password: string) => ({
      WHARF_STORE: `postgres://${user}:${password}@DB.example:5432/wharf`,
      WHARF_BLOBS: 's3://wharf/outputs/?endpoint=http://s3.example:9000&region=eu-west-1',
    });
    const one = await identityOf(join(scratch, 'a'), plane('wharf', 'hunter2'));
    const other = await identityOf(join(scratch, 'b'), plane('reader', 'correct-horse'));
    expect(other.id).toBe(one.id);
    // The default port is the same port; the description never holds a password.
    const portless = await identityOf(join(scratch, 'b'), {
      WHARF_STORE: 'postgres://wharf:hunter2@db.example/wharf',
      WHARF_BLOBS: 's3://wharf/outputs?endpoint=http://s3.example:9000',
    });
    expect(portless.id).toBe(one.id);
    expect(one.description).toBe(
      'store postgres://wharf@DB.example:5432/wharf, blobs s3://wharf/outputs (endpoint http://s3.example:9000, region eu-west-1)',
    );
    expect(one.description).not.toContain('hunter2');
  });

  it('tells apart another database, bucket, prefix or endpoint', async () => {
    const base = {
      WHARF_STORE: 'postgres://wharf@db:5432/wharf',
      WHARF_BLOBS: 's3://wharf/outputs?endpoint=http://s3:9000',
    };
    const id = (env: Record<string, string>) => identityOf(scratch, env).then((identity) => identity.id);
    const reference = await id(base);
    for (const changed of [
      { ...base, WHARF_STORE: 'postgres://wharf@db:5432/other' },
      { ...base, WHARF_STORE: 'postgres://wharf@db:5433/wharf' },
      { ...base, WHARF_BLOBS: 's3://other/outputs?endpoint=http://s3:9000' },
      { ...base, WHARF_BLOBS: 's3://wharf/elsewhere?endpoint=http://s3:9000' },
      { ...base, WHARF_BLOBS: 's3://wharf/outputs?endpoint=http://s3-two:9000' },
    ]) {
      expect(await id(changed)).not.toBe(reference);
    }
  });
});
