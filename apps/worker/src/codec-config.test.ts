import { describe, expect, it } from 'vitest';
import { codecServiceAuth, loadCodecServerConfig } from './codec-config.js';
import { WorkerConfigError } from './worker-config-error.js';

describe('loadCodecServerConfig', () => {
  it('listens on loopback port 8234 with no origin, token or data plane unless told', () => {
    expect(loadCodecServerConfig({})).toEqual({
      WHARF_CODEC_HOST: '127.0.0.1',
      WHARF_CODEC_PORT: 8234,
      WHARF_CODEC_ORIGINS: [],
      WHARF_DATA_DIR: '.wharf',
      LOG_LEVEL: 'info',
    });
  });

  it('reads the origins separated by commas or whitespace, and treats empty variables as unset', () => {
    const config = loadCodecServerConfig({
      WHARF_CODEC_ORIGINS: 'http://localhost:8233, http://127.0.0.1:8233\nhttps://ui.example.com',
      WHARF_CODEC_PORT: '18234',
      WHARF_CODEC_TOKEN: '',
      WHARF_STORE: '',
      WHARF_BLOBS: 's3://wharf/outputs?endpoint=http://127.0.0.1:9000',
    });
    expect(config.WHARF_CODEC_ORIGINS).toEqual([
      'http://localhost:8233',
      'http://127.0.0.1:8233',
      'https://ui.example.com',
    ]);
    expect(config.WHARF_CODEC_PORT).toBe(18234);
    expect(config.WHARF_CODEC_TOKEN).toBeUndefined();
    expect(config.WHARF_STORE).toBeUndefined();
    expect(config.WHARF_BLOBS).toBe('s3://wharf/outputs?endpoint=http://127.0.0.1:9000');
  });

  it('names every variable that cannot work', () => {
    let caught: unknown;
    try {
      loadCodecServerConfig({
        WHARF_CODEC_ORIGINS: 'http://localhost:8233,*',
        WHARF_CODEC_PORT: '70000',
        WHARF_STORE: 'mysql://db/wharf',
      });
    } catch (error) {
      caught = error;
    }
    expect(WorkerConfigError.isInstance(caught)).toBe(true);
    const error = caught as WorkerConfigError;
    expect(error.code).toBe('INVALID_ENV');
    expect([...error.variables].sort()).toEqual(['WHARF_CODEC_ORIGINS', 'WHARF_CODEC_PORT', 'WHARF_STORE']);
    expect(error.message).toContain('scheme://host[:port]');
  });

  it('reads an OIDC issuer, its audience and JWKS, and authenticates with it beside the token', () => {
    const config = loadCodecServerConfig({
      WHARF_CODEC_OIDC_ISSUER: 'https://login.example.com/realms/wharf',
      WHARF_CODEC_OIDC_AUDIENCE: 'temporal-ui',
      WHARF_CODEC_OIDC_JWKS_URI: 'https://login.example.com/realms/wharf/certs',
      WHARF_CODEC_TOKEN: 'a-token-of-sixteen-chars',
    });
    expect(codecServiceAuth(config)).toEqual({
      bearerToken: 'a-token-of-sixteen-chars',
      oidc: {
        issuer: 'https://login.example.com/realms/wharf',
        audience: 'temporal-ui',
        jwksUri: 'https://login.example.com/realms/wharf/certs',
      },
    });
    expect(
      codecServiceAuth(loadCodecServerConfig({ WHARF_CODEC_OIDC_ISSUER: 'http://127.0.0.1:9' })),
    ).toEqual({
      oidc: { issuer: 'http://127.0.0.1:9' },
    });
    // Compose passes the unset ones as empty: no auth at all.
    expect(
      codecServiceAuth(
        loadCodecServerConfig({
          WHARF_CODEC_TOKEN: '',
          WHARF_CODEC_OIDC_ISSUER: '',
          WHARF_CODEC_OIDC_AUDIENCE: '',
          WHARF_CODEC_OIDC_JWKS_URI: '',
        }),
      ),
    ).toBeUndefined();
  });

  it('refuses an issuer or JWKS that is no http(s) URL, and an audience or JWKS without an issuer, naming each', () => {
    const refused = (env: Record<string, string>) => {
      try {
        loadCodecServerConfig(env);
      } catch (error) {
        expect(WorkerConfigError.isInstance(error)).toBe(true);
        return error as WorkerConfigError;
      }
      throw new Error(`accepted ${JSON.stringify(env)}`);
    };
    const badUrls = refused({
      WHARF_CODEC_OIDC_ISSUER: 'login.example.com',
      WHARF_CODEC_OIDC_JWKS_URI: 'file:///etc/jwks.json',
    });
    expect([...badUrls.variables].sort()).toEqual(['WHARF_CODEC_OIDC_ISSUER', 'WHARF_CODEC_OIDC_JWKS_URI']);
    expect(badUrls.message).toContain('WHARF_CODEC_OIDC_ISSUER: give an http:// or https:// URL');
    const noIssuer = refused({
      WHARF_CODEC_OIDC_AUDIENCE: 'temporal-ui',
      WHARF_CODEC_OIDC_JWKS_URI: 'https://login.example.com/certs',
    });
    expect(noIssuer.code).toBe('INVALID_ENV');
    expect([...noIssuer.variables].sort()).toEqual([
      'WHARF_CODEC_OIDC_AUDIENCE',
      'WHARF_CODEC_OIDC_JWKS_URI',
    ]);
    expect(noIssuer.message).toContain('WHARF_CODEC_OIDC_AUDIENCE: needs WHARF_CODEC_OIDC_ISSUER');
  });
});
