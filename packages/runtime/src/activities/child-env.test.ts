import { WharfOrchestratorError } from '@wharf/swarm';
import { describe, expect, it } from 'vitest';
import { childEnvironment, isWharfCredential, passEnvNames } from './child-env.js';

const workerEnv = {
  PATH: '/usr/local/bin:/usr/bin',
  HOME: '/home/wharf',
  LANG: 'C.UTF-8',
  WHARF_DATA_DIR: '/data',
  WHARF_TASK_QUEUE: 'wharf',
  WHARF_STORE: 'postgres://wharf:pg-pass-0123456789@db:5432/wharf',
  WHARF_BLOBS: 's3://wharf/outputs?endpoint=http://s3:9000',
  WHARF_INTAKE_SECRET: 'intake-secret-0123456789',
  WHARF_S3_ACCESS_KEY_ID: 'compose-id',
  WHARF_S3_SECRET_ACCESS_KEY: 'compose-secret-0123456789',
  WHARF_DB_PASSWORD: 'db-password-0123456789',
  AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE0123',
  AWS_SECRET_ACCESS_KEY: 'aws-secret-0123456789',
  AWS_SESSION_TOKEN: 'aws-session-0123456789',
  AWS_WEB_IDENTITY_TOKEN_FILE: '/var/run/secrets/token',
  AWS_REGION: 'eu-west-1',
  PGPASSWORD: 'pgpassword-0123456789',
  TEMPORAL_ADDRESS: 'temporal:7233',
  TEMPORAL_API_KEY: 'temporal-key-0123456789',
  TEMPORAL_TLS_CLIENT_KEY_PATH: '/etc/temporal/client.key',
  TEMPORAL_TLS_CLIENT_CERT_PATH: '/etc/temporal/client.pem',
  OPENAI_API_KEY: 'sk-openai-0123456789',
  ANTHROPIC_API_KEY: 'sk-ant-0123456789',
  OPENAI_COMPATIBLE_API_KEY: 'compatible-0123456789',
  OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
  // Copies of secrets under names Wharf does not know.
  DATABASE_URL: 'postgres://wharf:pg-pass-0123456789@db:5432/wharf',
  LEGACY_S3: 'key=aws-secret-0123456789',
  // Not secrets.
  SHORT: 'wharf',
  MY_SETTING: 'on',
};

describe('childEnvironment', () => {
  it('keeps the worker environment but the credentials Wharf uses and copies of them', () => {
    const env = childEnvironment({ base: workerEnv });
    expect(env).toEqual({
      PATH: '/usr/local/bin:/usr/bin',
      HOME: '/home/wharf',
      LANG: 'C.UTF-8',
      WHARF_DATA_DIR: '/data',
      WHARF_TASK_QUEUE: 'wharf',
      WHARF_BLOBS: 's3://wharf/outputs?endpoint=http://s3:9000',
      AWS_REGION: 'eu-west-1',
      TEMPORAL_ADDRESS: 'temporal:7233',
      OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1',
      SHORT: 'wharf',
      MY_SETTING: 'on',
    });
    const text = JSON.stringify(env);
    for (const secret of ['pg-pass', 'secret-', 'aws-', 'sk-', 'temporal-key', 'pgpassword', 'compatible-']) {
      expect(text).not.toContain(secret);
    }
  });

  it('drops a percent-encoded or base64 copy of a secret, at any alignment inside a longer value', () => {
    const secret = 'sk-live/Abc+def:ghi jkl?';
    const base = {
      OPENAI_API_KEY: secret,
      PERCENT: `https://proxy/?key=${encodeURIComponent(secret)}`,
      PERCENT_LOWER: encodeURIComponent(secret).replace(/%[0-9A-F]{2}/g, (hex) => hex.toLowerCase()),
      BASIC: `Basic ${Buffer.from(`user:${secret}`).toString('base64')}`,
      BASIC_SHIFTED: Buffer.from(`xx:${secret}`).toString('base64'),
      BASIC_SHIFTED_TWICE: Buffer.from(`x:${secret}!`).toString('base64url'),
      JSON_BLOB: Buffer.from(JSON.stringify({ token: secret })).toString('base64'),
      INNOCENT: Buffer.from('nothing to see here, move along').toString('base64'),
    };
    expect(childEnvironment({ base })).toEqual({ INNOCENT: base.INNOCENT });
  });

  it('keeps a store without a secret, and drops one with a password in its query', () => {
    expect(childEnvironment({ base: { WHARF_STORE: 'sqlite:///srv/wharf/outputs.db' } })).toEqual({
      WHARF_STORE: 'sqlite:///srv/wharf/outputs.db',
    });
    expect(childEnvironment({ base: { WHARF_STORE: '.wharf/outputs.db' } })).toEqual({
      WHARF_STORE: '.wharf/outputs.db',
    });
    expect(childEnvironment({ base: { WHARF_STORE: 'postgres://wharf@db/wharf?password=x' } })).toEqual({});
    expect(childEnvironment({ base: { WHARF_STORE: 'postgres://wharf@db/wharf?sslmode=require' } })).toEqual({
      WHARF_STORE: 'postgres://wharf@db/wharf?sslmode=require',
    });
  });

  it('passes what WHARF_PASS_ENV names, even a credential, and adds the explicit environment last', () => {
    const env = childEnvironment({
      base: { ...workerEnv, GH_TOKEN: 'ghp-0123456789', WHARF_PASS_ENV: ' AWS_SECRET_ACCESS_KEY ,GH_TOKEN' },
      extra: { STAGE: 'test', PATH: '/opt/bin' },
    });
    expect(env.AWS_SECRET_ACCESS_KEY).toBe('aws-secret-0123456789');
    expect(env.GH_TOKEN).toBe('ghp-0123456789');
    // A copy of a passed value is not a secret's copy any more.
    expect(env.LEGACY_S3).toBe('key=aws-secret-0123456789');
    expect(env.AWS_SESSION_TOKEN).toBeUndefined();
    expect(env.STAGE).toBe('test');
    expect(env.PATH).toBe('/opt/bin');
  });

  it('refuses a malformed WHARF_PASS_ENV with INVALID_ENV naming the bad entry', () => {
    expect(passEnvNames({})).toEqual([]);
    expect(passEnvNames({ WHARF_PASS_ENV: 'A,,B_2' })).toEqual(['A', 'B_2']);
    let error: unknown;
    try {
      childEnvironment({ base: { WHARF_PASS_ENV: 'GOOD,bad name,2X' } });
    } catch (caught) {
      error = caught;
    }
    expect(WharfOrchestratorError.isInstance(error) && error.code).toBe('INVALID_ENV');
    expect((error as Error).message).toContain('"bad name", "2X"');
  });

  it('names credentials by their variables', () => {
    for (const name of [
      'AWS_ACCESS_KEY_ID',
      'AWS_CONTAINER_AUTHORIZATION_TOKEN',
      'AWS_BEARER_TOKEN_BEDROCK',
      'WHARF_S3_REGION',
      'WHARF_OUTPUT_TOKEN',
      'PGPASSFILE',
      'TEMPORAL_TLS_SERVER_CA_CERT_DATA',
      'TEMPORAL_CODEC_AUTH',
      'MISTRAL_API_KEY',
      'ANTHROPIC_AUTH_TOKEN',
      'OTEL_EXPORTER_OTLP_HEADERS',
      'OTEL_EXPORTER_OTLP_TRACES_HEADERS',
    ]) {
      expect([name, isWharfCredential(name, 'x')]).toEqual([name, true]);
    }
    for (const name of [
      'AWS_REGION',
      'AWS_PROFILE',
      'TEMPORAL_NAMESPACE',
      'OTEL_EXPORTER_OTLP_ENDPOINT',
      'PGHOST',
      'WHARF_MODEL',
      'KEYBOARD',
    ]) {
      expect([name, isWharfCredential(name, 'x')]).toEqual([name, false]);
    }
  });
});

describe('childEnvironment and the payload encryption keys', () => {
  const key = Buffer.alloc(32, 7).toString('base64');
  const codecEnv = {
    PATH: '/usr/bin',
    WHARF_CODEC_KEYS: `k2:${key},k1:${Buffer.alloc(32, 9).toString('base64')}`,
    WHARF_CODEC_KEYS_FILE: '/run/secrets/wharf-codec-keys',
    COPIED_KEY: `x=${key}`,
  };

  it('never hands a script the keys, their file, or a copy of one key of the ring', () => {
    expect(childEnvironment({ base: codecEnv })).toEqual({ PATH: '/usr/bin' });
    expect(isWharfCredential('WHARF_CODEC_KEYS_FILE', '/run/secrets/k')).toBe(true);
  });

  it('keeps them out even when WHARF_PASS_ENV names them', () => {
    const env = childEnvironment({
      base: { ...codecEnv, WHARF_PASS_ENV: 'WHARF_CODEC_KEYS,WHARF_CODEC_KEYS_FILE,COPIED_KEY' },
    });
    expect(env).toEqual({
      PATH: '/usr/bin',
      WHARF_PASS_ENV: 'WHARF_CODEC_KEYS,WHARF_CODEC_KEYS_FILE,COPIED_KEY',
    });
  });
});
