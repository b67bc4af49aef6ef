import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { exportJWK, generateKeyPair, type JWK, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEncryptionCodec } from '../encryption-codec.js';
import { KeyRing } from '../key-ring.js';
import { type CodecServer, startCodecServer } from './codec-server.js';
import { exchange } from './http-exchange.test.data.js';
import { fromWirePayload, toWirePayload, type WirePayloads } from './wire-payloads.js';

type SigningKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

describe('codec server with an OIDC issuer', () => {
  const keyRing = KeyRing.from([{ id: 'k1', key: randomBytes(32) }]);
  const codec = createEncryptionCodec({ keyRing });
  let issuerServer: Server;
  let issuer: string;
  let signingKey: SigningKey;
  let otherKey: SigningKey;
  let codecServer: CodecServer;
  const logged: unknown[] = [];

  beforeAll(async () => {
    const pair = await generateKeyPair('ES256');
    signingKey = pair.privateKey;
    otherKey = (await generateKeyPair('ES256')).privateKey;
    const jwk: JWK = { ...(await exportJWK(pair.publicKey)), kid: 'idp-1', alg: 'ES256', use: 'sig' };
    issuerServer = createServer((request, response) => {
      response.setHeader('Content-Type', 'application/json');
      if (request.url === '/.well-known/openid-configuration')
        response.end(JSON.stringify({ issuer, jwks_uri: `${issuer}/jwks` }));
      else if (request.url === '/jwks') response.end(JSON.stringify({ keys: [jwk] }));
      else response.writeHead(404).end('{}');
    });
    await new Promise<void>((resolve) => issuerServer.listen(0, '127.0.0.1', resolve));
    issuer = `http://127.0.0.1:${(issuerServer.address() as AddressInfo).port}`;
    codecServer = await startCodecServer({
      host: '127.0.0.1',
      keyRing,
      auth: { oidc: { issuer, audience: 'temporal-ui' } },
      logger: { info: (message, meta) => logged.push({ message, meta }), warn: () => {} },
    });
  });
  afterAll(async () => {
    await codecServer?.close();
    await new Promise((resolve) => issuerServer?.close(resolve));
  });

  async function token(
    options: { key?: SigningKey; iss?: string; aud?: string; exp?: string | number } = {},
  ) {
    return new SignJWT({ scope: 'openid' })
      .setProtectedHeader({ alg: 'ES256', kid: 'idp-1' })
      .setSubject('alice@example.com')
      .setIssuer(options.iss ?? issuer)
      .setAudience(options.aud ?? 'temporal-ui')
      .setIssuedAt()
      .setExpirationTime(options.exp ?? '5m')
      .sign(options.key ?? signingKey);
  }

  async function decodeWith(authorization: string | undefined) {
    const [payload] = (await codec.encode([defaultPayloadConverter.toPayload('for alice') as Payload])) as [
      Payload,
    ];
    return exchange(`${codecServer.url}/decode`, {
      body: JSON.stringify({ payloads: [toWirePayload(payload)] }),
      headers: authorization === undefined ? {} : { Authorization: authorization },
    });
  }

  it("decodes for an access token the issuer's JWKS verifies, and logs its subject", async () => {
    const answer = await decodeWith(`Bearer ${await token()}`);
    expect(answer.status).toBe(200);
    const [wire] = (JSON.parse(answer.text) as WirePayloads).payloads;
    expect(defaultPayloadConverter.fromPayload(fromWirePayload(wire as never))).toBe('for alice');
    expect(JSON.stringify(logged)).toContain('oidc:alice@example.com');
  });

  it('refuses no token, a token signed by another key, of another issuer or audience, or expired', async () => {
    const now = Math.floor(Date.now() / 1000);
    for (const authorization of [
      undefined,
      'Bearer not-a-jwt',
      `Bearer ${await token({ key: otherKey })}`,
      `Bearer ${await token({ iss: 'http://127.0.0.1:1' })}`,
      `Bearer ${await token({ aud: 'someone-else' })}`,
      `Bearer ${await token({ exp: now - 60 })}`,
    ]) {
      const answer = await decodeWith(authorization);
      expect(answer.status).toBe(401);
      expect(answer.text).not.toContain('for alice');
    }
  });
});
