import { InvalidOutputEventError } from '../errors.js';
import { assertLabelKeys } from '../label-keys.js';
import { labelsSchema } from '../schemas.js';
import type { OutputEvent } from '../types.js';

/**
 * An EMIT as the intake reads it from a request, before the token's producer is added.
 *
 * @example
 * ```ts
 * const draft: DraftEvent = { idempotencyKey: 'k1', content: { kind: 'text', text: 'hi' } };
 * ```
 */
export type DraftEvent = Omit<OutputEvent, 'producer'>;

/**
 * What a raw-body POST says in its headers: everything of the {@link DraftEvent} but the body.
 *
 * @example
 * ```ts
 * const meta: RawEventMeta = { idempotencyKey: 'k1', contentType: 'text/plain' };
 * ```
 */
export type RawEventMeta = Omit<DraftEvent, 'content'>;

/**
 * Reads the metadata headers of a raw-body POST (`Idempotency-Key`, `X-Wharf-Name`,
 * `Content-Type`, `X-Wharf-Ttl-Ms`, `X-Wharf-Labels`), checked in that order; the first bad one
 * throws {@link InvalidOutputEventError} naming the header. `header` answers a lower-case name
 * with its value, or `undefined` when the request has none (or an empty one).
 *
 * @example
 * ```ts
 * const meta = rawEventMeta((name) => request.headers.get(name) || undefined);
 * ```
 */
export function rawEventMeta(header: (name: string) => string | undefined): RawEventMeta {
  const idempotencyKey = decoded(header('idempotency-key'), 'Idempotency-Key');
  if (!idempotencyKey) throw new InvalidOutputEventError('Idempotency-Key', 'header is required');
  const name = decoded(header('x-wharf-name'), 'X-Wharf-Name');
  const contentType = header('content-type');
  const ttl = header('x-wharf-ttl-ms');
  if (ttl !== undefined && !/^\d+$/.test(ttl))
    throw new InvalidOutputEventError('X-Wharf-Ttl-Ms', 'must be a positive integer');
  const labelHeader = header('x-wharf-labels');
  let labels: Record<string, string> | undefined;
  if (labelHeader !== undefined) {
    const entries = Object.fromEntries(new URLSearchParams(labelHeader));
    assertLabelKeys(entries, 'X-Wharf-Labels');
    const parsed = labelsSchema.safeParse(entries);
    if (!parsed.success)
      throw new InvalidOutputEventError('X-Wharf-Labels', 'must be key=value pairs joined by &');
    labels = parsed.data;
  }
  return {
    idempotencyKey,
    ...(name === undefined ? {} : { name }),
    ...(contentType === undefined ? {} : { contentType }),
    ...(labels === undefined ? {} : { labels }),
    ...(ttl === undefined ? {} : { ttlMs: Number(ttl) }),
  };
}

function decoded(value: string | undefined, field: string): string | undefined {
  if (value === undefined) return undefined;
  try {
    return decodeURIComponent(value);
  } catch {
    throw new InvalidOutputEventError(field, 'is not valid percent-encoding');
  }
}
