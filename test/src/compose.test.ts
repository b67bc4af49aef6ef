import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';

// No Docker engine runs in CI, so the compose file is checked structurally here.
interface Service {
  image?: string;
  build?: unknown;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: unknown };
  entrypoint?: string[];
  volumes?: string[];
}

const compose = parse(await readFile(new URL('../../docker-compose.yml', import.meta.url), 'utf8')) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};

describe('docker-compose.yml', () => {
  it('has the self-hosted layout: PostgreSQL 16, schema job, server, namespace job, UI, Wharf workers', () => {
    expect(Object.keys(compose.services).sort()).toEqual(
      [
        'postgresql',
        'temporal',
        'temporal-namespace',
        'temporal-schema',
        'temporal-ui',
        'wharf-worker',
      ].sort(),
    );
    expect(compose.services.postgresql?.image).toMatch(/^postgres:16\.\d+$/);
    expect(JSON.stringify(compose)).not.toContain('auto-setup');
  });

  it('pins every image version', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      if (service.build !== undefined) continue;
      expect(service.image, name).toMatch(/:(\$\{[A-Z_]+:-)?\d+\.\d+(\.\d+)?\}?$/);
    }
  });

  it('orders start-up with health and completion conditions', () => {
    const { services } = compose;
    expect(services['temporal-schema']?.depends_on?.postgresql?.condition).toBe('service_healthy');
    expect(services.temporal?.depends_on?.['temporal-schema']?.condition).toBe(
      'service_completed_successfully',
    );
    expect(services['wharf-worker']?.depends_on?.['temporal-namespace']?.condition).toBe(
      'service_completed_successfully',
    );
    for (const name of ['postgresql', 'temporal-ui', 'wharf-worker']) {
      expect(services[name]?.healthcheck, name).toBeDefined();
    }
  });

  it('mounts scripts that exist and a shared data volume for the workers', async () => {
    for (const name of ['temporal-schema', 'temporal-namespace']) {
      const script = services(name).entrypoint?.[1] as string;
      const text = await readFile(new URL(`../../${script.replace(/^\//, '')}`, import.meta.url), 'utf8');
      expect(text).toMatch(/^#!\/bin\/sh/);
    }
    const namespaceScript = await readFile(
      new URL('../../deploy/temporal-namespace.sh', import.meta.url),
      'utf8',
    );
    for (const attribute of ['WharfSwarm', 'WharfOwner', 'WharfStatus'])
      expect(namespaceScript).toContain(attribute);
    expect(services('wharf-worker').volumes).toContain('wharf-data:/data');
    expect(compose.volumes).toHaveProperty('wharf-data');
  });
});

function services(name: string): Service {
  return compose.services[name] as Service;
}
