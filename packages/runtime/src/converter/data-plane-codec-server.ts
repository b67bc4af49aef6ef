import type { KeyRing } from '@wharf/codec';
import {
  type CodecServer,
  type CodecServerOptions,
  type ReferenceResolver,
  startCodecServer,
} from '@wharf/codec/server';
import type { OutputStore } from '@wharf/output-store';
import { readStoredPayload, temporalPayloadOwner } from './output-store-storage-driver.js';

/**
 * Resolves the External Storage references of Wharf's output-store driver for a codec server:
 * reads the stored payload by its out id, checks it is one the driver stored and that its body
 * matches the claim's SHA-256, and answers the owner it was stored for (the codec server refuses
 * any owner but the one it serves).
 *
 * @example
 * ```ts
 * const server = await startCodecServer({ keyRing, ownerId: 'temporal', resolveReference: storedPayloadResolver(store) });
 * ```
 */
export function storedPayloadResolver(store: Pick<OutputStore, 'get'>): ReferenceResolver {
  return async (reference) => {
    const { outId, sha256 } = reference.claimData;
    if (outId === undefined) throw new Error('reference has no outId');
    const { payload, ownerId } = await readStoredPayload(store, { outId, sha256 });
    return { ownerId, payload, outId };
  };
}

/** Options of {@link startDataPlaneCodecServer}. */
export interface DataPlaneCodecServerOptions
  extends Omit<CodecServerOptions, 'keyRing' | 'ownerId' | 'resolveReference'> {
  /** The data plane the External Storage driver offloads payloads to. */
  store: Pick<OutputStore, 'get'>;
  /** The ring the workers encrypt with. */
  keyRing: KeyRing;
  /** The owner whose stored payloads it opens: the driver's. Default `temporal`. */
  ownerId?: string;
}

/**
 * The codec server of a data plane (`@wharf/codec/server`'s `startCodecServer`): it decrypts
 * with the key ring and opens the External Storage references the driver wrote to `store` for
 * its owner (`temporal` unless the driver was given another), so the Web UI and
 * `temporal workflow show --codec-endpoint` show the values. Loopback only unless `auth` is given.
 *
 * @example
 * ```ts
 * const codec = await startDataPlaneCodecServer({ store: data.store, keyRing, allowedOrigins: ['http://127.0.0.1:8233'] });
 * console.log(codec.url); // give it to `temporal server start-dev --ui-codec-endpoint`
 * ```
 */
export function startDataPlaneCodecServer(options: DataPlaneCodecServerOptions): Promise<CodecServer> {
  const { store, ownerId, ...rest } = options;
  return startCodecServer({
    ...rest,
    ownerId: ownerId ?? temporalPayloadOwner,
    resolveReference: storedPayloadResolver(store),
  });
}
