import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';

/** What an access token {@link OidcIssuer.token} signs carries, where it differs from a good one. */
export interface AccessTokenOptions {
  /** Sign with a key the issuer's JWKS does not hold (a bad signature). */
  foreignKey?: boolean;
  /** `iss`; default the issuer's. */
  issuer?: string;
  /** `aud`; default `temporal-ui`. */
  audience?: string;
  /** `exp`: a time span from now (`5m`, the default) or seconds since the epoch. */
  expires?: string | number;
  /** `sub`; default `alice@example.com`. */
  subject?: string;
}

/** A local OpenID Connect issuer: its discovery document and JWKS over real HTTP. */
export interface OidcIssuer {
  /** The issuer (`iss`), `http://127.0.0.1:<port>`; its discovery is under `/.well-known/openid-configuration`. */
  readonly issuer: string;
  /** Its JWKS, `<issuer>/jwks`. */
  readonly jwksUri: string;
  /** An ES256 access token; a good one for `temporal-ui` unless `options` say otherwise. */
  token(options?: AccessTokenOptions): Promise<string>;
  close(): Promise<void>;
}

/**
 * Starts an OIDC issuer on loopback for tests of the codec server's access tokens: it serves
 * `/.well-known/openid-configuration` and `/jwks` (one ES256 key, kid `idp-1`) and signs tokens
 * with that key, or with another one for a bad signature.
 *
 * @example
 * ```ts
 * const idp = await startOidcIssuer();
 * const auth = { oidc: { issuer: idp.issuer, audience: 'temporal-ui' } };
 * const expired = await idp.token({ expires: Math.floor(Date.now() / 1000) - 60 });
 * await idp.close();
 * ```
 */
export async function startOidcIssuer(): Promise<OidcIssuer> {
  const pair = await generateKeyPair('ES256');
  const foreign = (await generateKeyPair('ES256')).privateKey;
  const jwk: JWK = { ...(await exportJWK(pair.publicKey)), kid: 'idp-1', alg: 'ES256', use: 'sig' };
  let issuer = '';
  const server: Server = createServer((request, response) => {
    response.setHeader('Content-Type', 'application/json');
    if (request.url === '/.well-known/openid-configuration')
      response.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
    else if (request.url === '/jwks') response.end(JSON.stringify({ keys: [jwk] }));
    else response.writeHead(404).end('{}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    jwksUri: `${issuer}/jwks`,
    token: (options = {}) =>
      new SignJWT({ scope: 'openid' })
        .setProtectedHeader({ alg: 'ES256', kid: 'idp-1' })
        .setSubject(options.subject ?? 'alice@example.com')
        .setIssuer(options.issuer ?? issuer)
        .setAudience(options.audience ?? 'temporal-ui')
        .setIssuedAt()
        .setExpirationTime(options.expires ?? '5m')
        .sign(options.foreignKey === true ? foreign : pair.privateKey),
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error === undefined ? resolve() : reject(error)));
      }),
  };
}
