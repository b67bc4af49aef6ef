import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter, type Payload, type StorageDriverStoreContext } from '@temporalio/common';
import { createEncryptionCodec, KeyRing } from '@wharf/codec';
import { type CodecServer, fromWirePayload, toWirePayload, type WirePayloads } from '@wharf/codec/server';
import { InMemoryOutputStore } from '@wharf/output-store';
import { afterEach, describe, expect, it } from 'vitest';
import { startDataPlaneCodecServer } from './data-plane-codec-server.js';
import { createOutputStoreStorageDriver, temporalPayloadOwner } from './output-store-storage-driver.js';

const secret = 'planted-secret-ds-7f3a';
const keyRing = KeyRing.from([{ id: 'k1', key: randomBytes(32) }]);
const codec = createEncryptionCodec({ keyRing });
const text = (value: string) => new TextEncoder().encode(value);

/** An External Storage reference as Temporal writes it into history. */
function referenceTo(claimData: Record<string, string>): Payload {
  return {
    metadata: {
      encoding: text('json/protobuf'),
      messageType: text('temporal.api.sdk.v1.ExternalStorageReference'),
    },
    data: text(JSON.stringify({ driverName: 'wharf-output-store', claimData })),
  };
}

async function decode(server: CodecServer, payloads: Payload[]): Promise<unknown[]> {
  const response = await fetch(`${server.url}/default/decode`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ payloads: payloads.map(toWirePayload) }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as WirePayloads).payloads.map((wire) =>
    defaultPayloadConverter.fromPayload(fromWirePayload(wire)),
  );
}

describe('the data plane codec server', () => {
  let server: CodecServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function storedReference(store: InMemoryOutputStore): Promise<Payload> {
    const driver = createOutputStoreStorageDriver({ store });
    const [encrypted] = (await codec.encode([
      defaultPayloadConverter.toPayload({ prompt: secret }) as Payload,
    ])) as [Payload];
    const [claim] = await driver.store({} as StorageDriverStoreContext, [encrypted]);
    return referenceTo(claim?.claimData as Record<string, string>);
  }

  it("decrypts an encrypted payload and opens the driver's stored ciphertext behind a reference", async () => {
    const store = new InMemoryOutputStore();
    const reference = await storedReference(store);
    const [stored] = (await store.list({ limit: 10 })).records;
    expect(stored?.producer.ownerId).toBe(temporalPayloadOwner);
    expect(Buffer.from((await store.get({ outId: stored?.outId ?? '' })).body).includes(secret)).toBe(false);
    server = await startDataPlaneCodecServer({ store, keyRing });
    const [inline] = (await codec.encode([defaultPayloadConverter.toPayload('inline value') as Payload])) as [
      Payload,
    ];
    expect(await decode(server, [reference, inline])).toEqual([{ prompt: secret }, 'inline value']);
  });

  it("refuses another owner's payloads, a body that is not a stored payload, and a claim whose hash differs", async () => {
    const store = new InMemoryOutputStore();
    const reference = await storedReference(store);
    server = await startDataPlaneCodecServer({ store, keyRing, ownerId: 'team-a' });
    const [foreign] = await decode(server, [reference]);
    expect(foreign).toMatch(/CODEC_FORBIDDEN_REFERENCE/);
    expect(String(foreign)).not.toContain(secret);
    await server.close();
    server = await startDataPlaneCodecServer({ store, keyRing });
    const plain = await store.emit({
      producer: { ownerId: temporalPayloadOwner, runId: 'r', spawnId: 's' },
      content: { kind: 'text', text: secret },
      idempotencyKey: 'plain',
    });
    const { claimData } = JSON.parse(new TextDecoder().decode(reference.data)) as {
      claimData: Record<string, string>;
    };
    const answers = await decode(server, [
      referenceTo({ outId: plain.outId }),
      referenceTo({ ...claimData, sha256: '0'.repeat(64) }),
    ]);
    for (const answer of answers) {
      expect(answer).toMatch(/CODEC_REFERENCE_UNAVAILABLE/);
      expect(String(answer)).not.toContain(secret);
    }
  });
});
