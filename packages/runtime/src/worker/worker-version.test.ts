import { describe, expect, it } from 'vitest';
import { checkWorkerVersion, pinnedDeploymentOptions, workerVersionFromEnv } from './worker-version.js';
import { WorkerVersionError } from './worker-version-error.js';

function refusal(read: () => unknown): WorkerVersionError {
  try {
    read();
  } catch (error) {
    if (WorkerVersionError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('not refused');
}

describe('workerVersionFromEnv', () => {
  it('is undefined (unversioned) when neither variable is set, empty counting as unset', () => {
    expect(workerVersionFromEnv({})).toBeUndefined();
    expect(workerVersionFromEnv({ WHARF_DEPLOYMENT_NAME: '', WHARF_BUILD_ID: '' })).toBeUndefined();
  });

  it('reads the deployment name and the build id', () => {
    expect(
      workerVersionFromEnv({ WHARF_DEPLOYMENT_NAME: 'wharf', WHARF_BUILD_ID: '0.1.0-3fa2c9d1e0ab' }),
    ).toEqual({ deploymentName: 'wharf', buildId: '0.1.0-3fa2c9d1e0ab' });
  });

  it('refuses one without the other, naming the variable set', () => {
    const buildOnly = refusal(() => workerVersionFromEnv({ WHARF_BUILD_ID: 'b1' }));
    expect(buildOnly.code).toBe('INCOMPLETE_VERSION');
    expect(buildOnly.variables).toEqual(['WHARF_BUILD_ID']);
    expect(buildOnly.message).toContain('WHARF_BUILD_ID is set without WHARF_DEPLOYMENT_NAME');
    const nameOnly = refusal(() =>
      workerVersionFromEnv({ WHARF_DEPLOYMENT_NAME: 'wharf', WHARF_BUILD_ID: '' }),
    );
    expect(nameOnly.code).toBe('INCOMPLETE_VERSION');
    expect(nameOnly.variables).toEqual(['WHARF_DEPLOYMENT_NAME']);
  });
});

describe('checkWorkerVersion', () => {
  it.each([
    [{ deploymentName: 'wharf.prod', buildId: 'b1' }, 'WHARF_DEPLOYMENT_NAME', '"." or ":"'],
    [{ deploymentName: 'wharf:prod', buildId: 'b1' }, 'WHARF_DEPLOYMENT_NAME', '"." or ":"'],
    [{ deploymentName: '__wharf', buildId: 'b1' }, 'WHARF_DEPLOYMENT_NAME', 'reserved'],
    [{ deploymentName: 'wharf', buildId: 'x'.repeat(109) }, 'WHARF_BUILD_ID', 'longer than 108'],
    [{ deploymentName: 'wharf', buildId: ' b1' }, 'WHARF_BUILD_ID', 'white space'],
  ])('refuses what the server would: %j', (version, variable, reason) => {
    const error = refusal(() => checkWorkerVersion(version));
    expect(error.code).toBe('INVALID_VERSION');
    expect(error.variables).toEqual([variable]);
    expect(error.message).toContain(reason);
  });

  it('keeps a build id with dots (a release and a hash)', () => {
    expect(checkWorkerVersion({ deploymentName: 'wharf', buildId: '1.2.3-abc' }).buildId).toBe('1.2.3-abc');
  });
});

describe('pinnedDeploymentOptions', () => {
  it('turns Worker Versioning on with every workflow pinned', () => {
    expect(pinnedDeploymentOptions({ deploymentName: 'wharf', buildId: 'b1' })).toEqual({
      version: { deploymentName: 'wharf', buildId: 'b1' },
      useWorkerVersioning: true,
      defaultVersioningBehavior: 'PINNED',
    });
  });
});
