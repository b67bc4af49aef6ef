import { describe, expect, it } from 'vitest';
import { loadWorkerConfig } from './config.js';
import { WorkerConfigError } from './worker-config-error.js';

describe('loadWorkerConfig', () => {
  it('applies defaults', () => {
    expect(loadWorkerConfig({})).toMatchObject({
      TEMPORAL_ADDRESS: '127.0.0.1:7233',
      WHARF_TASK_QUEUE: 'wharf',
      WHARF_MAX_CONCURRENT: 8,
      LOG_LEVEL: 'info',
    });
  });

  it('coerces numbers from the environment', () => {
    expect(loadWorkerConfig({ WHARF_HEALTH_PORT: '8080', WHARF_MAX_CONCURRENT: '32' })).toMatchObject({
      WHARF_HEALTH_PORT: 8080,
      WHARF_MAX_CONCURRENT: 32,
    });
  });

  it('names every bad variable', () => {
    let caught: unknown;
    try {
      loadWorkerConfig({ WHARF_HEALTH_PORT: '99999', LOG_LEVEL: 'loud', WHARF_MAX_CONCURRENT: 'many' });
    } catch (error) {
      caught = error;
    }
    expect(WorkerConfigError.isInstance(caught)).toBe(true);
    const message = (caught as Error).message;
    expect(message).toContain('WHARF_HEALTH_PORT');
    expect(message).toContain('LOG_LEVEL');
    expect(message).toContain('WHARF_MAX_CONCURRENT');
  });

  it('reads the shared data plane, empty meaning unset', () => {
    expect(
      loadWorkerConfig({ WHARF_STORE: 'postgres://wharf@db:5432/wharf', WHARF_BLOBS: 's3://wharf/outputs' }),
    ).toMatchObject({ WHARF_STORE: 'postgres://wharf@db:5432/wharf', WHARF_BLOBS: 's3://wharf/outputs' });
    const unset = loadWorkerConfig({ WHARF_STORE: '', WHARF_BLOBS: '' });
    expect(unset.WHARF_STORE).toBeUndefined();
    expect(unset.WHARF_BLOBS).toBeUndefined();
  });

  it('names a malformed store or blobs URL and what is wrong with it, never the password', () => {
    let caught: unknown;
    try {
      loadWorkerConfig({ WHARF_STORE: 'mysql://root:hunter2@db/wharf', WHARF_BLOBS: 's3://Bad_Bucket' });
    } catch (error) {
      caught = error;
    }
    expect(WorkerConfigError.isInstance(caught)).toBe(true);
    const message = (caught as Error).message;
    expect(message).toMatch(/WHARF_STORE: scheme "mysql:" is not supported/);
    expect(message).toMatch(/WHARF_BLOBS: bucket "Bad_Bucket"/);
    expect(message).not.toContain('hunter2');
  });
});
