import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { InvalidConfigError } from '@wharf/swarm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadTemporalConfig } from './temporal-connection.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wharf-temporal-config-'));
  await writeFile(join(dir, 'client.pem'), 'CLIENT CERT');
  await writeFile(join(dir, 'client.key'), 'CLIENT KEY');
  await writeFile(join(dir, 'ca.pem'), 'CA CERT');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Writes a config file and returns its path. */
async function configFile(name: string, text: string): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  return path;
}

function failure(run: () => unknown): InvalidConfigError {
  try {
    run();
  } catch (error) {
    if (InvalidConfigError.isInstance(error)) return error;
    throw error;
  }
  throw new Error('expected an InvalidConfigError');
}

describe('loadTemporalConfig', () => {
  it('defaults to a local server, with nothing configured', () => {
    const config = loadTemporalConfig({ env: {} });
    expect(config).toMatchObject({
      address: '127.0.0.1:7233',
      namespace: 'default',
      configured: false,
      connection: { address: '127.0.0.1:7233' },
      source: 'the default',
    });
    expect(config.connection.tls).toBeUndefined();
  });

  it('reads the variables; an API key turns TLS on, and the summary never shows the key', () => {
    const config = loadTemporalConfig({
      env: {
        TEMPORAL_ADDRESS: 'eu.tmprl.cloud:7233',
        TEMPORAL_NAMESPACE: 'team.a1b2c',
        TEMPORAL_API_KEY: 'secret-key',
      },
    });
    expect(config).toMatchObject({
      address: 'eu.tmprl.cloud:7233',
      namespace: 'team.a1b2c',
      configured: true,
      connection: { address: 'eu.tmprl.cloud:7233', apiKey: 'secret-key', tls: true },
      source: 'TEMPORAL_ADDRESS',
    });
    expect(config.summary).toBe(
      'eu.tmprl.cloud:7233 (namespace team.a1b2c, TLS, API key; from TEMPORAL_ADDRESS)',
    );
    expect(config.summary).not.toContain('secret-key');
    expect(loadTemporalConfig({ env: { TEMPORAL_API_KEY: 'k', TEMPORAL_TLS: 'false' } }).connection.tls).toBe(
      false,
    );
  });

  it('counts empty variables as unset, as Compose passes them', () => {
    const config = loadTemporalConfig({
      env: { TEMPORAL_ADDRESS: '', TEMPORAL_API_KEY: '', TEMPORAL_PROFILE: '' },
    });
    expect(config).toMatchObject({ address: '127.0.0.1:7233', configured: false });
  });

  it('reads a profile of the config file, certificates included; variables and options beat it', async () => {
    const path = await configFile(
      'mtls.toml',
      [
        '[profile.default]',
        'address = "localhost:7233"',
        '[profile.secure]',
        'address = "temporal.internal:7233"',
        'namespace = "swarms"',
        '[profile.secure.tls]',
        `client_cert_path = "${join(dir, 'client.pem')}"`,
        `client_key_path = "${join(dir, 'client.key')}"`,
        `server_ca_cert_path = "${join(dir, 'ca.pem')}"`,
        'server_name = "temporal.internal"',
        '[profile.secure.grpc_meta]',
        'x-team = "wharf"',
      ].join('\n'),
    );
    const config = loadTemporalConfig({ env: { TEMPORAL_CONFIG_FILE: path, TEMPORAL_PROFILE: 'secure' } });
    expect(config).toMatchObject({
      address: 'temporal.internal:7233',
      namespace: 'swarms',
      configured: true,
      source: `profile "secure" in ${path}`,
      connection: { metadata: { 'x-team': 'wharf' } },
    });
    const tls = config.connection.tls as {
      serverNameOverride: string;
      serverRootCACertificate: Uint8Array;
      clientCertPair: { crt: Uint8Array; key: Uint8Array };
    };
    expect(tls.serverNameOverride).toBe('temporal.internal');
    expect(Buffer.from(tls.clientCertPair.crt).toString()).toBe('CLIENT CERT');
    expect(Buffer.from(tls.clientCertPair.key).toString()).toBe('CLIENT KEY');
    expect(Buffer.from(tls.serverRootCACertificate).toString()).toBe('CA CERT');

    // Without TEMPORAL_PROFILE, the default profile.
    expect(loadTemporalConfig({ env: { TEMPORAL_CONFIG_FILE: path } }).address).toBe('localhost:7233');
    const overridden = loadTemporalConfig({
      env: { TEMPORAL_CONFIG_FILE: path, TEMPORAL_PROFILE: 'secure', TEMPORAL_NAMESPACE: 'other' },
      address: 'override:7233',
    });
    expect(overridden).toMatchObject({
      address: 'override:7233',
      namespace: 'other',
      source: 'the address given',
    });
  });

  it('finds the config file where the SDKs do: $XDG_CONFIG_HOME or ~/.config, temporalio/temporal.toml', async () => {
    const home = join(dir, 'home');
    await mkdir(join(home, '.config', 'temporalio'), { recursive: true });
    await writeFile(
      join(home, '.config', 'temporalio', 'temporal.toml'),
      '[profile.default]\naddress = "home:7233"\n',
    );
    expect(loadTemporalConfig({ env: { HOME: home } }).address).toBe('home:7233');
    expect(loadTemporalConfig({ env: { HOME: home, XDG_CONFIG_HOME: join(home, 'nothing') } }).address).toBe(
      '127.0.0.1:7233',
    );
  });

  it('names TEMPORAL_PROFILE and the file when the profile does not exist', async () => {
    const path = await configFile(
      'two.toml',
      '[profile.default]\naddress = "a:1"\n[profile.staging]\naddress = "b:2"\n',
    );
    const error = failure(() =>
      loadTemporalConfig({ env: { TEMPORAL_CONFIG_FILE: path, TEMPORAL_PROFILE: 'production' } }),
    );
    expect(error).toMatchObject({ code: 'INVALID_CONFIG', setting: 'TEMPORAL_PROFILE', file: path });
    expect(error.message).toBe(
      `TEMPORAL_PROFILE: profile "production" is not in ${path} (its profiles: default, staging)`,
    );
    const noFile = failure(() =>
      loadTemporalConfig({ env: { HOME: join(dir, 'nobody'), TEMPORAL_PROFILE: 'cloud' } }),
    );
    expect(noFile.setting).toBe('TEMPORAL_PROFILE');
    expect(noFile.message).toContain('(no such file)');
  });

  it('names the file, the line and the key of a malformed config file', async () => {
    const broken = await configFile('broken.toml', '[profile.default]\naddress = "a:1\n');
    const error = failure(() => loadTemporalConfig({ env: { TEMPORAL_CONFIG_FILE: broken } }));
    expect(error).toMatchObject({ setting: 'TEMPORAL_CONFIG_FILE', file: broken });
    expect(error.message).toMatch(new RegExp(`^${broken}:2:\\d+ is not valid TOML: `));

    const mistyped = await configFile('mistyped.toml', '[profile.default]\naddress = 7233\n');
    const typed = failure(() => loadTemporalConfig({ env: { TEMPORAL_CONFIG_FILE: mistyped } }));
    expect(typed).toMatchObject({ setting: 'profile.default.address', file: mistyped });
    expect(typed.message).toContain(`${mistyped}: profile.default.address: Invalid input: expected string`);

    const both = await configFile(
      'both.toml',
      `[profile.default.tls]\nclient_cert_path = "${join(dir, 'client.pem')}"\nclient_cert_data = "PEM"\n`,
    );
    expect(failure(() => loadTemporalConfig({ env: { TEMPORAL_CONFIG_FILE: both } })).setting).toBe(
      'profile.default.tls.client_cert_path',
    );
  });

  it('names TEMPORAL_CONFIG_FILE when the file it names cannot be read', () => {
    const missing = join(dir, 'missing.toml');
    const error = failure(() => loadTemporalConfig({ env: { TEMPORAL_CONFIG_FILE: missing } }));
    expect(error).toMatchObject({ setting: 'TEMPORAL_CONFIG_FILE', file: missing });
    expect(error.message).toMatch(/^TEMPORAL_CONFIG_FILE: cannot read .*missing\.toml: ENOENT/);
  });

  it('names the variable, or the profile key and file, of a certificate that cannot be read', async () => {
    const fromEnv = failure(() =>
      loadTemporalConfig({
        env: {
          TEMPORAL_ADDRESS: 'x:7233',
          TEMPORAL_TLS_CLIENT_CERT_PATH: join(dir, 'nope.pem'),
          TEMPORAL_TLS_CLIENT_KEY_PATH: join(dir, 'client.key'),
        },
      }),
    );
    expect(fromEnv.setting).toBe('TEMPORAL_TLS_CLIENT_CERT_PATH');
    expect(fromEnv.message).toMatch(/^TEMPORAL_TLS_CLIENT_CERT_PATH: cannot read .*nope\.pem: ENOENT/);

    const path = await configFile(
      'bad-ca.toml',
      `[profile.cloud]\naddress = "x:7233"\n[profile.cloud.tls]\nserver_ca_cert_path = "${dir}"\n`,
    );
    const fromFile = failure(() =>
      loadTemporalConfig({ env: { TEMPORAL_CONFIG_FILE: path, TEMPORAL_PROFILE: 'cloud' } }),
    );
    expect(fromFile).toMatchObject({ setting: 'profile.cloud.tls.server_ca_cert_path', file: path });
    expect(fromFile.message).toContain('EISDIR');
  });

  it('refuses a client certificate without its key', () => {
    const error = failure(() =>
      loadTemporalConfig({ env: { TEMPORAL_TLS_CLIENT_CERT_PATH: join(dir, 'client.pem') } }),
    );
    expect(error.setting).toBe('TEMPORAL_TLS_CLIENT_CERT_PATH');
    expect(error.message).toContain('needs its key too (TEMPORAL_TLS_CLIENT_KEY_PATH');
  });
});
