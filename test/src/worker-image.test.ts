import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { workerImage } from './worker-image.js';

// Orphans of scripts are re-parented to PID 1, which must reap them; Node does not
// (worker-init.e2e.test.ts counts the zombies). These keep an init in front of the worker.
describe('the worker image', () => {
  it('runs the worker under tini, installed from Debian', () => {
    const image = workerImage();
    expect(image.packages).toContain('tini');
    expect(image.entrypoint).toEqual(['/usr/bin/tini', '--']);
    expect(image.cmd).toEqual(['/app/dist/main.js']);
  });

  it('gets an init from docker-compose.yml too, in each service run from it (the workers, the codec server)', async () => {
    const compose = parse(await readFile(new URL('../../docker-compose.yml', import.meta.url), 'utf8')) as {
      services: Record<string, { build?: unknown; init?: unknown }>;
    };
    const workers = Object.entries(compose.services).filter(([, service]) => service.build !== undefined);
    expect(workers.map(([name]) => name)).toEqual(['wharf-worker', 'wharf-codec']);
    for (const [name, service] of workers) expect(service.init, name).toBe(true);
  });
});
