import { join } from 'node:path';
import { InvalidStoreUrlError } from '@wharf/output-store/config';
import { describe, expect, it } from 'vitest';
import { resolveDataPlane } from './data-dir.js';

describe('resolveDataPlane', () => {
  it('keeps the store and evidence in the data directory when nothing is configured', () => {
    const plane = resolveDataPlane('/srv/wharf', { env: { WHARF_STORE: '', WHARF_BLOBS: '' } });
    expect(plane.shared).toBe(false);
    expect(plane.store).toBe(join('/srv/wharf', 'outputs.db'));
    expect(plane.location).toEqual({
      store: '/srv/wharf/outputs.db',
      blobs: '/srv/wharf/outputs.db.blobs',
      artifacts: '/srv/wharf/artifacts',
    });
  });

  it('reads WHARF_STORE and WHARF_BLOBS, and prints them without the password', () => {
    const plane = resolveDataPlane('/srv/wharf', {
      env: {
        WHARF_STORE: 'postgres://wharf:hunter2@db:5432/wharf',
        WHARF_BLOBS: 's3://wharf/outputs?region=eu-west-1',
      },
    });
    expect(plane.shared).toBe(true);
    expect(plane.store).toBe('postgres://wharf:hunter2@db:5432/wharf');
    expect(plane.location).toEqual({
      store: 'postgres://wharf@db:5432/wharf',
      blobs: 's3://wharf/outputs (region eu-west-1)',
      artifacts: 'in the output store',
    });
  });

  it('lets options win over the environment, and names the option that is malformed', () => {
    const plane = resolveDataPlane('/srv/wharf', {
      store: '/elsewhere/outputs.db',
      env: { WHARF_STORE: 'postgres://db/wharf' },
    });
    expect(plane.storeConfig).toEqual({ kind: 'sqlite', path: '/elsewhere/outputs.db' });
    expect(plane.shared).toBe(true);
    let caught: unknown;
    try {
      resolveDataPlane('/srv/wharf', { blobs: 'ftp://host/dir', env: {} });
    } catch (error) {
      caught = error;
    }
    expect(InvalidStoreUrlError.isInstance(caught)).toBe(true);
    expect((caught as InvalidStoreUrlError).variable).toBe('blobs');
    expect((caught as InvalidStoreUrlError).part).toBe('scheme');
  });
});
