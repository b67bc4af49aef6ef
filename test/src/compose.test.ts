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
  it('has the self-hosted layout: PostgreSQL 16, schema job, server, namespace job, UI, S3 and its bucket job, Wharf workers', () => {
    expect(Object.keys(compose.services).sort()).toEqual(
      [
        'postgresql',
        's3',
        's3-bucket',
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
      // A semantic version, or MinIO's immutable RELEASE.<timestamp> tags.
      expect(service.image, name).toMatch(
        /:(\$\{[A-Z_]+:-)?(\d+\.\d+(\.\d+)?|RELEASE\.\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ)\}?$/,
      );
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
    expect(services['s3-bucket']?.depends_on?.s3?.condition).toBe('service_healthy');
    for (const name of ['postgresql', 'temporal-ui', 'wharf-worker', 's3']) {
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

  it('keeps the S3 data on a volume and creates the bucket idempotently with its credentials', () => {
    expect(services('s3').volumes).toContain('s3-data:/data');
    expect(compose.volumes).toHaveProperty('s3-data');
    const script = (services('s3-bucket').entrypoint ?? []).join(' ');
    expect(script).toContain('http://s3:9000');
    expect(script).toContain('mc mb --ignore-existing wharf/wharf');
    // `$$` survives Compose interpolation, so the shell reads the container's variables.
    expect(script).toContain('"$$MINIO_ROOT_USER" "$$MINIO_ROOT_PASSWORD"');
  });
});

function services(name: string): Service {
  return compose.services[name] as Service;
}
