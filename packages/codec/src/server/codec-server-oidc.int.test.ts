import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEncryptionCodec } from '../encryption-codec.js';
import { KeyRing } from '../key-ring.js';
import { type OidcIssuer, startOidcIssuer } from '../testing/oidc-issuer.js';
import { type CodecServer, startCodecServer } from './codec-server.js';
import { exchange } from './http-exchange.test.data.js';
import { fromWirePayload, toWirePayload, type WirePayloads } from './wire-payloads.js';

describe('codec server with an OIDC issuer', () => {
  const keyRing = KeyRing.from([{ id: 'k1', key: randomBytes(32) }]);
  const codec = createEncryptionCodec({ keyRing });
  let idp: OidcIssuer;
  let codecServer: CodecServer;
  const logged: unknown[] = [];

  beforeAll(async () => {
    idp = await startOidcIssuer();
    codecServer = await startCodecServer({
      host: '127.0.0.1',
      keyRing,
      auth: { oidc: { issuer: idp.issuer, audience: 'temporal-ui' } },
      logger: { info: (message, meta) => logged.push({ message, meta }), warn: () => {} },
    });
  });
  afterAll(async () => {
    await codecServer?.close();
    await idp?.close();
  });

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
    const answer = await decodeWith(`Bearer ${await idp.token()}`);
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
      `Bearer ${await idp.token({ foreignKey: true })}`,
      `Bearer ${await idp.token({ issuer: 'http://127.0.0.1:1' })}`,
      `Bearer ${await idp.token({ audience: 'someone-else' })}`,
      `Bearer ${await idp.token({ expires: now - 60 })}`,
    ]) {
      const answer = await decodeWith(authorization);
      expect(answer.status).toBe(401);
      expect(answer.text).not.toContain('for alice');
    }
  });
});
