import { createHash } from 'node:crypto';
import {
  type DataConverter,
  ExternalStorage,
  type Payload,
  type StorageDriver,
  StorageDriverClaim,
} from '@temporalio/common';
import proto from '@temporalio/proto';
import { encryptedDataConverter, type KeyRing } from '@wharf/codec';
import { asWharfWrite, type OutputStore } from '@wharf/output-store';
import { WharfOrchestratorError } from '@wharf/swarm';

const ProtoPayload = proto.temporal.api.common.v1.Payload;
const PAYLOAD_CONTENT_TYPE = 'application/x-temporal-payload';

/**
 * The owner the External Storage driver records on the payloads it stores, unless given
 * another: payloads belong to the data plane, not to one swarm's owner. A codec server that
 * resolves the driver's references serves this owner (`wharf codec-server --owner`).
 */
export const temporalPayloadOwner = 'temporal';

/**
 * The payload stored under an out id by the External Storage driver, checked: stored by the
 * driver (its content type), its body's SHA-256 as the claim says when one is given. Answers the
 * owner it was stored for; the caller decides whether that owner may read it.
 *
 * @example
 * ```ts
 * const { payload, ownerId } = await readStoredPayload(store, { outId, sha256 });
 * ```
 */
export async function readStoredPayload(
  store: Pick<OutputStore, 'get'>,
  claim: { outId: string; sha256?: string | undefined },
): Promise<{ payload: Payload; ownerId: string }> {
  const { outId, sha256 } = claim;
  const { body, record } = await store.get({ outId });
  if (record.contentType !== PAYLOAD_CONTENT_TYPE)
    throw new WharfOrchestratorError(
      'PAYLOAD_UNAVAILABLE',
      `external payload ${outId} is not a payload this driver stored (content type ${record.contentType})`,
    );
  if (sha256 !== undefined) {
    const actual = createHash('sha256').update(body).digest('hex');
    if (actual !== sha256) {
      throw new WharfOrchestratorError(
        'PAYLOAD_UNAVAILABLE',
        `external payload ${outId} is corrupt: sha256 ${actual}, expected ${sha256}`,
      );
    }
  }
  return { payload: ProtoPayload.decode(body) as Payload, ownerId: record.producer.ownerId };
}

/** Options of {@link createOutputStoreStorageDriver}. */
export interface OutputStoreStorageDriverOptions {
  /** Where offloaded payloads go. */
  store: OutputStore;
  /** Routing name written into the wire format; keep it stable. Default `wharf-output-store`. */
  name?: string;
  /** Owner recorded on the stored payloads. Default `temporal` ({@link temporalPayloadOwner}). */
  ownerId?: string;
}

/**
 * A Temporal External Storage driver backed by any `@wharf/output-store` store: a payload
 * over the threshold (a large workflow input, a signal, a result) is EMITted to the store
 * and replaced in history by a small claim. Payloads are stored content-addressed, so a
 * retried store returns the same claim, and every retrieve checks the body's SHA-256.
 *
 * @example
 * ```ts
 * const driver = createOutputStoreStorageDriver({ store });
 * const dataConverter = { externalStorage: new ExternalStorage({ drivers: [driver] }) };
 * ```
 */
export function createOutputStoreStorageDriver(options: OutputStoreStorageDriverOptions): StorageDriver {
  const { store } = options;
  const ownerId = options.ownerId ?? temporalPayloadOwner;
  return {
    name: options.name ?? 'wharf-output-store',
    type: 'wharf.output-store',
    async store(context, payloads) {
      const target = context.target;
      const runId = target?.id ?? 'unknown';
      const spawnId = target === undefined ? 'payload' : `${target.kind}:${target.type ?? 'unknown'}`;
      return Promise.all(
        payloads.map(async (payload) => {
          const bytes = ProtoPayload.encode(payload).finish();
          const sha256 = createHash('sha256').update(bytes).digest('hex');
          // Marked as Wharf's own: no caller of emit can store a payload under this content type.
          const ref = await store.emit(
            asWharfWrite({
              producer: { ownerId, runId, spawnId },
              content: { kind: 'bytes', bytes },
              idempotencyKey: `temporal-payload:${sha256}`,
              contentType: PAYLOAD_CONTENT_TYPE,
              labels: { kind: 'temporal-payload', ...(target ? { namespace: target.namespace } : {}) },
            }),
          );
          return new StorageDriverClaim({ outId: ref.outId, sha256 });
        }),
      );
    },
    async retrieve(_context, claims) {
      return Promise.all(
        claims.map(async (claim): Promise<Payload> => {
          const { outId, sha256 } = claim.claimData;
          if (outId === undefined || sha256 === undefined) {
            throw new WharfOrchestratorError(
              'PAYLOAD_UNAVAILABLE',
              `malformed external payload claim: ${JSON.stringify(claim.claimData)}`,
            );
          }
          const stored = await readStoredPayload(store, { outId, sha256 });
          if (stored.ownerId !== ownerId)
            throw new WharfOrchestratorError(
              'PAYLOAD_UNAVAILABLE',
              `external payload ${outId} is not a payload this driver stored (owner ${stored.ownerId})`,
            );
          return stored.payload;
        }),
      );
    },
  };
}

/** Options of {@link createWharfDataConverter}. */
export interface WharfDataConverterOptions extends OutputStoreStorageDriverOptions {
  /** Payloads larger than this many bytes are offloaded. Default 256 KiB (Temporal warns at 512 KiB, fails at 2 MiB). */
  payloadSizeThreshold?: number;
  /**
   * Encrypts every payload and failure message with this key ring (`loadKeyRing` reads
   * `WHARF_CODEC_KEYS` / `WHARF_CODEC_KEYS_FILE`). Default: no encryption. Temporal's SDK
   * encrypts first and then offloads: the output store holds ciphertext, and its content-hash
   * deduplication no longer finds a value stored before (every encryption differs).
   */
  keyRing?: KeyRing | undefined;
}

/**
 * A data converter whose External Storage is the given output store, and with `keyRing` the
 * payload encryption codec and a failure converter that encrypts messages and stacks. Use the
 * same options for the client and the worker.
 *
 * @example
 * ```ts
 * const keyRing = await loadKeyRing({ env: process.env }); // undefined: encryption off
 * const dataConverter = createWharfDataConverter({ store, keyRing });
 * const client = new Client({ connection, dataConverter });
 * ```
 */
export function createWharfDataConverter(options: WharfDataConverterOptions): DataConverter {
  return {
    ...(options.keyRing === undefined ? {} : encryptedDataConverter({ keyRing: options.keyRing })),
    externalStorage: new ExternalStorage({
      drivers: [createOutputStoreStorageDriver(options)],
      payloadSizeThreshold: options.payloadSizeThreshold ?? 256 * 1024,
    }),
  };
}
