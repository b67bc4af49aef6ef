import { createHash, timingSafeEqual } from 'node:crypto';
import { parseBearerToken } from '@wharf/common';
import { createRemoteJWKSet, type JWTVerifyGetKey, jwtVerify } from 'jose';
import { z } from 'zod';

/**
 * An OpenID Connect issuer whose access tokens the codec server accepts (the Web UI forwards
 * the signed-in user's token when its `codec.passAccessToken` is on).
 *
 * @example
 * ```ts
 * const oidc: OidcOptions = { issuer: 'https://login.example.com/', audience: 'temporal-ui' };
 * ```
 */
export interface OidcOptions {
  /** The issuer (`iss`) tokens must name. */
  issuer: string;
  /** The audience (`aud`) tokens must name, if any is required. */
  audience?: string | string[];
  /** The issuer's JWKS; default: the `jwks_uri` of `<issuer>/.well-known/openid-configuration`. */
  jwksUri?: string;
  /** Accepted signature algorithms. Default: RS256, ES256, PS256, EdDSA. */
  algorithms?: string[];
}

/**
 * How the codec server authenticates requests: a bearer token it is given, an OIDC issuer, or
 * both (a request passes with either).
 *
 * @example
 * ```ts
 * const auth: CodecAuthOptions = { bearerToken: process.env.WHARF_CODEC_TOKEN };
 * ```
 */
export interface CodecAuthOptions {
  bearerToken?: string;
  oidc?: OidcOptions;
}

/** Who made an authenticated request, as the server's log names them. */
export type Principal = string;

/** The outcome of authenticating one request. */
export type Authentication = { ok: true; principal: Principal } | { ok: false; reason: string };

/**
 * Checks `Authorization` headers: a configured bearer token by constant-time comparison, else
 * an OIDC access token (a JWT signed by a key of the issuer's JWKS, with its `iss`, `aud` and
 * `exp`). Without any auth configured every request is `anonymous` (the server then listens on
 * loopback only).
 *
 * @example
 * ```ts
 * const authenticate = createAuthenticator({ bearerToken: 's3cret-token' });
 * await authenticate('Bearer s3cret-token'); // { ok: true, principal: 'bearer-token' }
 * ```
 */
export function createAuthenticator(
  options: CodecAuthOptions | undefined,
): (authorization: string | undefined) => Promise<Authentication> {
  const expected = options?.bearerToken === undefined ? undefined : digest(options.bearerToken);
  const oidc = options?.oidc === undefined ? undefined : oidcVerifier(options.oidc);
  if (expected === undefined && oidc === undefined) return async () => ({ ok: true, principal: 'anonymous' });
  return async (authorization) => {
    const token = parseBearerToken(authorization);
    if (token === undefined) return { ok: false, reason: 'missing bearer token' };
    if (expected !== undefined && timingSafeEqual(digest(token), expected))
      return { ok: true, principal: 'bearer-token' };
    if (oidc === undefined) return { ok: false, reason: 'wrong bearer token' };
    return oidc(token);
  };
}

/** SHA-256 first, so tokens of any length compare in constant time. */
function digest(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

const discoverySchema = z.object({ issuer: z.string(), jwks_uri: z.string().url() });

function oidcVerifier(options: OidcOptions): (token: string) => Promise<Authentication> {
  let keys: Promise<JWTVerifyGetKey> | undefined;
  const keySet = (): Promise<JWTVerifyGetKey> => {
    keys ??= jwksUri(options).then((uri) => createRemoteJWKSet(new URL(uri)));
    // A failed discovery is tried again on the next request.
    keys.catch(() => {
      keys = undefined;
    });
    return keys;
  };
  return async (token) => {
    try {
      const { payload } = await jwtVerify(token, await keySet(), {
        issuer: options.issuer,
        ...(options.audience === undefined ? {} : { audience: options.audience }),
        algorithms: options.algorithms ?? ['RS256', 'ES256', 'PS256', 'EdDSA'],
        requiredClaims: ['exp'],
      });
      return { ok: true, principal: `oidc:${payload.sub ?? 'unknown'}` };
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      return { ok: false, reason: `access token refused (${typeof code === 'string' ? code : 'invalid'})` };
    }
  };
}

async function jwksUri(options: OidcOptions): Promise<string> {
  if (options.jwksUri !== undefined) return options.jwksUri;
  const url = `${options.issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  if (!response.ok) throw new Error(`OIDC discovery at ${url} answered ${response.status}`);
  const discovery = discoverySchema.parse(await response.json());
  if (discovery.issuer !== options.issuer) throw new Error(`OIDC discovery at ${url} names another issuer`);
  return discovery.jwks_uri;
}
