import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isolatedEnv } from './isolated-env.js';
import { runWharf } from './wharf-cli.js';

// Real `wharf` processes (apps/cli/dist: `pnpm build` first) with a Temporal or tracing setting
// that cannot work: each exits 2 naming the variable or the file, before anything starts or is
// written, and never reaches for a server.

describe('wharf refuses Temporal and tracing settings that cannot work', { timeout: 120_000 }, () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-temporal-config-'));
    await writeFile(join(dir, 'ok.yaml'), 'name: ok\ntasks:\n  a: { script: { content: echo } }\n');
    env = isolatedEnv(dir);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('a certificate that cannot be read: run, status, approve and input name the variable', async () => {
    const bad = {
      ...env,
      TEMPORAL_ADDRESS: 'temporal.example:7233',
      TEMPORAL_TLS_CLIENT_CERT_PATH: join(dir, 'missing.pem'),
      TEMPORAL_TLS_CLIENT_KEY_PATH: join(dir, 'missing.key'),
    };
    for (const args of [
      ['run', 'ok.yaml', '--data-dir', join(dir, 'data')],
      ['status', 'some-run'],
      ['approve', 'some-run', 'deploy'],
      ['input', 'some-run', 'region=eu'],
    ]) {
      const result = await runWharf(args, dir, { timeoutMs: 60_000, env: bad });
      expect(result.code, `${args[0]}: ${result.stderr}`).toBe(2);
      expect(result.stderr).toMatch(
        /^wharf: TEMPORAL_TLS_CLIENT_CERT_PATH: cannot read .*missing\.pem: ENOENT/,
      );
      expect(result.stderr).not.toContain('unexpected error');
    }
    // Nothing was opened for the run: its data directory holds no store.
    expect(await readdir(join(dir, 'data'))).not.toContain('outputs.db');
  });

  it('a profile that does not exist names TEMPORAL_PROFILE and the file', async () => {
    const file = join(dir, 'temporal.toml');
    await writeFile(
      file,
      '[profile.default]\naddress = "127.0.0.1:7233"\n[profile.staging]\naddress = "s:7233"\n',
    );
    const result = await runWharf(['status', 'some-run'], dir, {
      timeoutMs: 60_000,
      env: {
        ...env,
        TEMPORAL_CONFIG_FILE: file,
        TEMPORAL_PROFILE: 'production',
      },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(
      `wharf: TEMPORAL_PROFILE: profile "production" is not in ${file} (its profiles: default, staging)`,
    );
  });

  it('a malformed config file names the file and the line', async () => {
    const file = join(dir, 'broken.toml');
    await writeFile(file, '[profile.default]\naddress = "127.0.0.1:7233\n');
    const result = await runWharf(['run', 'ok.yaml', '--data-dir', join(dir, 'data')], dir, {
      timeoutMs: 60_000,
      env: {
        ...env,
        TEMPORAL_CONFIG_FILE: file,
      },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(new RegExp(`^wharf: ${file}:2:\\d+ is not valid TOML`));
  });

  it('a tracing exporter Wharf cannot start names the variable', async () => {
    const result = await runWharf(['run', 'ok.yaml', '--data-dir', join(dir, 'data')], dir, {
      timeoutMs: 60_000,
      env: {
        ...env,
        OTEL_TRACES_EXPORTER: 'zipkin',
      },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('wharf: OTEL_TRACES_EXPORTER: "zipkin" is not supported');
  });

  it('no Temporal server: status checks it and exits 4 naming it; status <run> says how to reach the run again', async () => {
    const gone = { ...env, TEMPORAL_ADDRESS: '127.0.0.1:1' };
    const plain = await runWharf(['status', '--data-dir', join(dir, 'status-data')], dir, {
      timeoutMs: 60_000,
      env: gone,
    });
    expect(plain.code, plain.stderr).toBe(4);
    expect(plain.stdout).toContain(
      'temporal: 127.0.0.1:1 (namespace default): no Temporal server at 127.0.0.1:1',
    );
    expect(plain.stderr).toContain('wharf: Temporal failed the check: no Temporal server at 127.0.0.1:1');
    expect(plain.stdout).not.toContain('status:   connected');
    const run = await runWharf(['status', 'some-run', '--data-dir', 'mine'], dir, {
      timeoutMs: 60_000,
      env: gone,
    });
    expect(run.code).toBe(4);
    expect(run.stderr).toContain(
      '`wharf resume some-run --data-dir mine` starts it again and gives the run a worker, `wharf dev --data-dir mine` starts it to look around',
    );
  });
});
