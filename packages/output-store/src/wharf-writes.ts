import { InvalidOutputEventError } from './errors.js';
import type { OutputEvent } from './types.js';

/**
 * The label Wharf's own writers put on every part of a stored list (`manifest`, `chunk`,
 * `index`) and that only they may set: a reader follows a part only when it carries it.
 */
export const manifestPartLabel = 'wharf.part';

/**
 * The label (and prefix of the labels) Wharf's stream writer puts on the parts of a durable
 * output stream (`wharf.stream`, `wharf.stream.attempt`, …); only it may set them.
 */
const streamLabelPrefix = 'wharf.stream';

/**
 * Media types Wharf reserves for what it writes itself: manifests and item indexes
 * (`application/vnd.wharf.*`) and the Temporal payloads the External Storage driver stores.
 * An `emit` from anyone else (a caller of the store, the intake, the CLI, an agent's `emit`
 * tool) that names one is refused, parameters and case notwithstanding.
 */
const reservedMediaTypes: readonly RegExp[] = [
  /^application\/vnd\.wharf\./,
  /^application\/x-temporal-payload$/,
];

/** Set on an event by {@link asWharfWrite}; not reachable from JSON, HTTP or the CLI. */
const wharfWrite: unique symbol = Symbol('wharf.write');

/**
 * True when `contentType` is one Wharf reserves for its own writers (see
 * {@link asWharfWrite}).
 *
 * @example
 * ```ts
 * isReservedContentType('application/vnd.wharf.manifest+json; charset=utf-8'); // true
 * isReservedContentType('application/json'); // false
 * ```
 */
export function isReservedContentType(contentType: string): boolean {
  const mediaType = contentType.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  return reservedMediaTypes.some((pattern) => pattern.test(mediaType));
}

/**
 * Marks an event as written by Wharf itself, so the store accepts a reserved content type
 * and the {@link manifestPartLabel} on it. The mark is a module-private symbol: it does not
 * survive JSON, so nothing that arrives over HTTP, from the CLI or from a model's tool call
 * can carry it. Stored lists and item indexes are written with it; their readers follow a
 * part only if it carries the label this mark lets through.
 *
 * @example
 * ```ts
 * await store.emit(asWharfWrite({ producer, content, idempotencyKey, contentType: manifestContentType }));
 * ```
 */
export function asWharfWrite(event: OutputEvent): OutputEvent {
  return Object.assign({ ...event }, { [wharfWrite]: true });
}

/**
 * Refuses, with {@link InvalidOutputEventError} naming the field, an event that claims what
 * only Wharf's own writers may claim: a reserved content type, the {@link manifestPartLabel},
 * or a stream label (`wharf.stream`, `wharf.stream.*`).
 *
 * @example
 * ```ts
 * assertNotReserved({ ...event, contentType: 'application/vnd.wharf.manifest+json' });
 * // throws InvalidOutputEventError: invalid output event: contentType is reserved for Wharf's own stored lists …
 * ```
 */
export function assertNotReserved(event: OutputEvent): void {
  if ((event as { [wharfWrite]?: boolean })[wharfWrite] === true) return;
  if (typeof event.contentType === 'string' && isReservedContentType(event.contentType))
    throw new InvalidOutputEventError(
      'contentType',
      `is reserved for Wharf's own stored lists and payloads (${event.contentType}); send the body as application/json or text`,
    );
  const labels = event.labels as Record<string, unknown> | undefined;
  if (typeof labels !== 'object' || labels === null) return;
  if (Object.hasOwn(labels, manifestPartLabel))
    throw new InvalidOutputEventError(
      `labels.${manifestPartLabel}`,
      'is reserved for the parts of the lists Wharf stores itself',
    );
  for (const key of Object.keys(labels)) {
    if (key === streamLabelPrefix || key.startsWith(`${streamLabelPrefix}.`))
      throw new InvalidOutputEventError(
        `labels.${key}`,
        'is reserved for the parts of the streams Wharf stores itself',
      );
  }
}
