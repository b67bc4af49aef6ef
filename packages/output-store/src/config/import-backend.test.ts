import { describe, expect, it } from 'vitest';
import { BackendMissingError, InvalidStoreUrlError } from './config-errors.js';
import { importBackend } from './import-backend.js';

// Not literals, so the compiler does not look for them: their absence is the point.
const absentPackage = 'wharf-absent-backend-package';
const absentModule = './no-such-backend.js';
const presentPackageMissingDependency = 'wharf-other-absent-package';

describe('importBackend', () => {
  it('turns a missing optional package into BackendMissingError naming what to install', async () => {
    const error = await importBackend(() => import(absentPackage), [absentPackage], 'postgres://').catch(
      (caught: unknown) => caught,
    );
    expect(BackendMissingError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ code: 'INVALID_OPTION', packages: [absentPackage] });
    expect((error as Error).message).toBe(`install ${absentPackage} to use postgres:// stores`);
  });

  it('says "blobs" for s3:// and lists every package', async () => {
    const error = await importBackend(() => import(absentPackage), [absentPackage, 'second'], 's3://').catch(
      (caught: unknown) => caught,
    );
    expect((error as Error).message).toBe(`install ${absentPackage} and second to use s3:// blobs`);
  });

  it('reports a backend module missing from this build on the scheme, naming the variable', async () => {
    const error = await importBackend(() => import(absentModule), ['pg'], 'postgres://').catch(
      (caught: unknown) => caught,
    );
    expect(InvalidStoreUrlError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ variable: 'WHARF_STORE', part: 'scheme' });
  });

  it('passes other failures through unchanged', async () => {
    const boom = new Error('boom');
    await expect(importBackend(() => Promise.reject(boom), ['pg'], 'postgres://')).rejects.toBe(boom);
    const other = await importBackend(
      () => import(presentPackageMissingDependency),
      ['pg'],
      'postgres://',
    ).catch((caught: unknown) => caught);
    expect(BackendMissingError.isInstance(other)).toBe(false);
    expect((other as { code?: string }).code).toBe('ERR_MODULE_NOT_FOUND');
  });
});
