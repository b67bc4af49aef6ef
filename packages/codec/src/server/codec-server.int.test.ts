import { createHash, randomBytes } from 'node:crypto';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import proto from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEncryptionCodec } from '../encryption-codec.js';
import { UnsafeBindError } from '../errors.js';
import { KeyRing } from '../key-ring.js';
import { textBytes } from '../metadata.js';
import { type CodecServer, startCodecServer } from './codec-server.js';
import type { CodecServerLogger } from './codec-server-options.js';
import type { ReferenceResolver } from './decode-payload.js';
import { exchange } from './http-exchange.test.data.js';
import { fromWirePayload, toWirePayload, type WirePayloads } from './wire-payloads.js';

const secret = 'planted-secret-3b9e1d';
const uiOrigin = 'http://localhost:8233';
const token = 'codec-token-0123456789abcdef';
const keyRing = KeyRing.from([
  { id: 'k2', key: randomBytes(32) },
  { id: 'k1', key: randomBytes(32) },
]);
const codec = createEncryptionCodec({ keyRing });
const stranger = createEncryptionCodec({ keyRing: KeyRing.from([{ id: 'k0', key: randomBytes(32) }]) });

function payloadOf(value: unknown): Payload {
  return defaultPayloadConverter.toPayload(value) as Payload;
}

async function encrypted(value: unknown, with_ = codec): Promise<Payload> {
  return ((await with_.encode([payloadOf(value)])) as [Payload])[0];
}

/** An External Storage reference as Temporal writes it into history. */
function referencePayload(outId: string, body: Payload): Payload {
  const sha256 = createHash('sha256')
    .update(proto.temporal.api.common.v1.Payload.encode(body).finish())
    .digest('hex');
  return {
    metadata: {
      encoding: textBytes('json/protobuf'),
      messageType: textBytes('temporal.api.sdk.v1.ExternalStorageReference'),
    },
    data: textBytes(JSON.stringify({ driverName: 'wharf-output-store', claimData: { outId, sha256 } })),
  };
}

function body(payloads: Payload[]): string {
  return JSON.stringify({ payloads: payloads.map(toWirePayload) });
}

function answered(text: string): unknown[] {
  return (JSON.parse(text) as WirePayloads).payloads.map((wire) =>
    defaultPayloadConverter.fromPayload(fromWirePayload(wire)),
  );
}

describe('codec server', () => {
  const stored = new Map<string, { ownerId: string; payload: Payload }>();
  const resolveReference: ReferenceResolver = async (reference) => {
    const outId = reference.claimData.outId ?? '';
    const entry = stored.get(outId);
    if (entry === undefined) throw new Error(`no ${outId}`);
    return { ownerId: entry.ownerId, payload: entry.payload, outId };
  };
  const logged: unknown[] = [];
  const logger: CodecServerLogger = {
    info: (message, meta) => logged.push({ message, meta }),
    warn: (message, meta) => logged.push({ message, meta }),
  };
  let open: CodecServer;
  let guarded: CodecServer;

  beforeAll(async () => {
    stored.set('out_AAAAAAAAAAAAAAAA', { ownerId: 'team-a', payload: await encrypted({ big: secret }) });
    stored.set('out_BBBBBBBBBBBBBBBB', { ownerId: 'team-b', payload: await encrypted({ theirs: secret }) });
    stored.set('out_CCCCCCCCCCCCCCCC', {
      ownerId: 'team-a',
      payload: await encrypted(`${'x'.repeat(300 * 1024)}${secret}`),
    });
    open = await startCodecServer({ keyRing, ownerId: 'team-a', resolveReference, logger });
    guarded = await startCodecServer({
      keyRing,
      ownerId: 'team-a',
      resolveReference,
      logger,
      auth: { bearerToken: token },
      allowedOrigins: [uiOrigin],
      maxRequestBytes: 1024 * 1024,
    });
  });
  afterAll(async () => {
    await open?.close();
    await guarded?.close();
  });

  it('decodes what the codec encrypted, and passes plain payloads through', async () => {
    const plain = payloadOf({ plain: true });
    const answer = await exchange(`${open.url}/decode`, {
      body: body([await encrypted({ prompt: secret }), plain]),
    });
    expect(answer.status).toBe(200);
    expect(answered(answer.text)).toEqual([{ prompt: secret }, { plain: true }]);
    const [, passed] = (JSON.parse(answer.text) as WirePayloads).payloads;
    expect(passed).toEqual(toWirePayload(plain));
  });

  it('encodes under the active key, and serves both under /{namespace}/', async () => {
    const encoded = await exchange(`${open.url}/default/encode`, { body: body([payloadOf('hello')]) });
    expect(encoded.status).toBe(200);
    const wire = (JSON.parse(encoded.text) as WirePayloads).payloads;
    expect(Buffer.from(wire[0]?.metadata?.['encryption-key-id'] ?? '', 'base64').toString()).toBe('k2');
    const decoded = await exchange(`${open.url}/default/decode`, { body: encoded.text });
    expect(answered(decoded.text)).toEqual(['hello']);
    expect(logged).toContainEqual({
      message: 'codec decode',
      meta: expect.objectContaining({ namespace: 'default', principal: 'anonymous' }),
    });
  });

  it('resolves a reference of the served owner, refuses another owner’s, and names a key it lacks, each in place', async () => {
    const answer = await exchange(`${open.url}/decode`, {
      body: body([
        ((await codec.encode([referencePayload('out_AAAAAAAAAAAAAAAA', payloadOf(null))])) as [Payload])[0],
        referencePayload('out_BBBBBBBBBBBBBBBB', payloadOf(null)),
        await encrypted({ lost: secret }, stranger),
        await encrypted('still decoded'),
      ]),
    });
    expect(answer.status).toBe(200);
    const [mine, theirs, lacking, fine] = answered(answer.text) as [unknown, string, string, string];
    expect(mine).toEqual({ big: secret });
    expect(theirs).toBe(
      '[wharf codec] CODEC_FORBIDDEN_REFERENCE: reference out_BBBBBBBBBBBBBBBB is not readable by owner team-a',
    );
    expect(theirs).not.toContain(secret);
    expect(lacking).toMatch(/^\[wharf codec\] CODEC_UNKNOWN_KEY: .*"k0"/);
    expect(fine).toBe('still decoded');
    const wire = (JSON.parse(answer.text) as WirePayloads).payloads;
    expect(Buffer.from(wire[2]?.metadata?.['wharf-codec-error'] ?? '', 'base64').toString()).toBe(
      'CODEC_UNKNOWN_KEY',
    );
  });

  it('cuts a body over the display limit, saying how many bytes remain and how to read them', async () => {
    const answer = await exchange(`${open.url}/decode`, {
      body: body([referencePayload('out_CCCCCCCCCCCCCCCC', payloadOf(null))]),
    });
    const [text] = answered(answer.text) as [string];
    const whole = Buffer.byteLength(JSON.stringify(`${'x'.repeat(300 * 1024)}${secret}`));
    expect(text.startsWith(`"${'x'.repeat(1000)}`)).toBe(true);
    expect(text).not.toContain(secret);
    expect(text).toMatch(
      new RegExp(
        `\\n… ${whole - 256 * 1024} bytes more \\(cut for display; read it whole with: wharf outputs show out_CCCCCCCCCCCCCCCC\\)$`,
      ),
    );
  });

  it('never logs payload contents', () => {
    expect(logged.length).toBeGreaterThan(0);
    const text = JSON.stringify(logged);
    expect(text).not.toContain(secret);
    expect(text).toContain('out_AAAAAAAAAAAAAAAA');
    expect(text).toContain('k0');
  });

  it('asks for the bearer token: none and a wrong one are 401, the right one decodes', async () => {
    const request = { body: body([await encrypted('decoded-value')]) };
    const none = await exchange(`${guarded.url}/decode`, request);
    expect(none.status).toBe(401);
    expect(none.headers['www-authenticate']).toBe('Bearer');
    const wrong = await exchange(`${guarded.url}/decode`, {
      ...request,
      headers: { Authorization: `Bearer ${token}x` },
    });
    expect(wrong.status).toBe(401);
    expect(wrong.text).not.toContain('decoded-value');
    const right = await exchange(`${guarded.url}/decode`, {
      ...request,
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(right.status).toBe(200);
    expect(answered(right.text)).toEqual(['decoded-value']);
  });

  it('answers CORS for the UI origin only', async () => {
    const preflight = await exchange(`${guarded.url}/default/decode`, {
      method: 'OPTIONS',
      headers: { Origin: uiOrigin, 'Access-Control-Request-Method': 'POST' },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe(uiOrigin);
    expect(preflight.headers['access-control-allow-credentials']).toBe('true');
    expect(preflight.headers['access-control-allow-headers']).toBe(
      'X-Namespace, Content-Type, Authorization',
    );
    const allowed = await exchange(`${guarded.url}/decode`, {
      body: body([await encrypted('ok')]),
      headers: { Origin: uiOrigin, Authorization: `Bearer ${token}` },
    });
    expect(allowed.status).toBe(200);
    expect(allowed.headers['access-control-allow-origin']).toBe(uiOrigin);
    for (const method of ['OPTIONS', 'POST'])
      for (const origin of ['http://evil.example', 'http://localhost:8234', 'null']) {
        const refused = await exchange(`${guarded.url}/decode`, {
          method,
          ...(method === 'POST' ? { body: body([await encrypted(secret)]) } : {}),
          headers: { Origin: origin, Authorization: `Bearer ${token}` },
        });
        expect(refused.status).toBe(403);
        expect(Object.keys(refused.headers).filter((name) => name.startsWith('access-control-'))).toEqual([]);
        expect(refused.text).not.toContain(secret);
      }
  });

  it('refuses a request over the size limit with 413', async () => {
    const huge = await exchange(`${guarded.url}/decode`, {
      body: JSON.stringify({ payloads: [{ data: Buffer.alloc(2 * 1024 * 1024).toString('base64') }] }),
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(huge.status).toBe(413);
  });

  it('refuses malformed bodies with 400 and unknown routes with 404', async () => {
    expect((await exchange(`${open.url}/decode`, { body: '{"payloads":[{"data":"%%"}]}' })).status).toBe(400);
    expect((await exchange(`${open.url}/decode`, { body: 'not json' })).status).toBe(400);
    expect((await exchange(`${open.url}/a/b/decode`, { body: '{}' })).status).toBe(404);
    expect((await exchange(`${open.url}/decode`, { method: 'GET' })).status).toBe(405);
  });

  it('without auth, refuses a non-loopback Host (DNS rebinding) and a non-loopback bind', async () => {
    const rebound = await exchange(`${open.url}/decode`, {
      body: body([await encrypted(secret)]),
      headers: { Host: 'attacker.example:80' },
    });
    expect(rebound.status).toBe(403);
    expect(rebound.text).not.toContain(secret);
    await expect(startCodecServer({ keyRing, host: '0.0.0.0' })).rejects.toSatisfy(
      (error) => UnsafeBindError.isInstance(error) && error.code === 'CODEC_UNSAFE_BIND',
    );
  });
});

describe('codec server limits', () => {
  it('answers 503 beyond its concurrency, and 503 past its deadline', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    // It does not heed its abort signal: the deadline must answer anyway.
    const slow: ReferenceResolver = async (_reference, ownerId) => {
      await held;
      return { ownerId, payload: payloadOf('late') };
    };
    const server = await startCodecServer({
      keyRing,
      ownerId: 'team-a',
      resolveReference: slow,
      maxConcurrentRequests: 1,
      requestTimeoutMs: 500,
    });
    try {
      const request = { body: body([referencePayload('out_DDDDDDDDDDDDDDDD', payloadOf(null))]) };
      const first = exchange(`${server.url}/decode`, request);
      await new Promise((resolve) => setTimeout(resolve, 100));
      const second = await exchange(`${server.url}/decode`, request);
      expect(second.status).toBe(503);
      expect(second.headers['retry-after']).toBe('1');
      const timedOut = await first;
      expect(timedOut.status).toBe(503);
      expect(JSON.parse(timedOut.text)).toMatchObject({ error: { code: 'TIMEOUT' } });
    } finally {
      release();
      await server.close();
    }
  });
});
