import { createHash } from 'node:crypto';
import {
  type DataConverter,
  ExternalStorage,
  type Payload,
  type StorageDriver,
  StorageDriverClaim,
} from '@temporalio/common';
import proto from '@temporalio/proto';
import { asWharfWrite, type OutputStore } from '@wharf/output-store';
import { WharfOrchestratorError } from '@wharf/swarm';

const ProtoPayload = proto.temporal.api.common.v1.Payload;
const PAYLOAD_CONTENT_TYPE = 'application/x-temporal-payload';

/** Options of {@link createOutputStoreStorageDriver}. */
export interface OutputStoreStorageDriverOptions {
  /** Where offloaded payloads go. */
  store: OutputStore;
  /** Routing name written into the wire format; keep it stable. Default `wharf-output-store`. */
  name?: string;
  /** Owner recorded on the stored payloads. Default `temporal`. */
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
  const ownerId = options.ownerId ?? 'temporal';
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
          const { body, record } = await store.get({ outId });
          if (record.contentType !== PAYLOAD_CONTENT_TYPE || record.producer.ownerId !== ownerId)
            throw new WharfOrchestratorError(
              'PAYLOAD_UNAVAILABLE',
              `external payload ${outId} is not a payload this driver stored (content type ${record.contentType})`,
            );
          const actual = createHash('sha256').update(body).digest('hex');
          if (actual !== sha256) {
            throw new WharfOrchestratorError(
              'PAYLOAD_UNAVAILABLE',
              `external payload ${outId} is corrupt: sha256 ${actual}, expected ${sha256}`,
            );
          }
          return ProtoPayload.decode(body) as Payload;
        }),
      );
    },
  };
}

/** Options of {@link createWharfDataConverter}. */
export interface WharfDataConverterOptions extends OutputStoreStorageDriverOptions {
  /** Payloads larger than this many bytes are offloaded. Default 256 KiB (Temporal warns at 512 KiB, fails at 2 MiB). */
  payloadSizeThreshold?: number;
}

/**
 * A data converter whose External Storage is the given output store. Use the same options for
 * the client and the worker.
 *
 * @example
 * ```ts
 * const dataConverter = createWharfDataConverter({ store });
 * const client = new Client({ connection, dataConverter });
 * ```
 */
export function createWharfDataConverter(options: WharfDataConverterOptions): DataConverter {
  return {
    externalStorage: new ExternalStorage({
      drivers: [createOutputStoreStorageDriver(options)],
      payloadSizeThreshold: options.payloadSizeThreshold ?? 256 * 1024,
    }),
  };
}
