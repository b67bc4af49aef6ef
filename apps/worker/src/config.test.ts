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
});
