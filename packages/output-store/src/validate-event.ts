import { InvalidOutputEventError } from './errors.js';
import { assertLabelKeys } from './label-keys.js';
import { unstorableReason } from './storable-text.js';
import type { IdempotencyScope, ListQuery, OutputEvent } from './types.js';
import { assertNotReserved } from './wharf-writes.js';

const maxIdLength = 256;
const maxLabels = 64;
const contentTypePattern = /^[A-Za-z0-9!#$&^_.+-]+\/[A-Za-z0-9!#$&^_.+-]+(\s*;.*)?$/;

function requireId(value: unknown, field: string, maxLength = maxIdLength): void {
  if (typeof value !== 'string' || value.length === 0) {
    throw new InvalidOutputEventError(field, 'must be a non-empty string');
  }
  if (value.length > maxLength)
    throw new InvalidOutputEventError(field, `must be at most ${maxLength} characters`);
  requireStorable(value, field);
}

function requireStorable(value: string, field: string): void {
  const reason = unstorableReason(value);
  if (reason !== undefined) throw new InvalidOutputEventError(field, reason);
}

/**
 * Checks an {@link OutputEvent} from an untyped caller and throws
 * {@link InvalidOutputEventError} naming the first bad field. A content type or label that
 * only Wharf's own writers may set (see `asWharfWrite`) is refused too.
 *
 * @example
 * ```ts
 * validateOutputEvent(event); // throws InvalidOutputEventError('producer.runId', 'must be a non-empty string')
 * ```
 */
export function validateOutputEvent(event: OutputEvent): void {
  if (typeof event !== 'object' || event === null)
    throw new InvalidOutputEventError('event', 'must be an object');
  const producer = event.producer as OutputEvent['producer'] | undefined;
  if (typeof producer !== 'object' || producer === null) {
    throw new InvalidOutputEventError('producer', 'must be an object');
  }
  requireId(producer.ownerId, 'producer.ownerId');
  requireId(producer.runId, 'producer.runId');
  requireId(producer.spawnId, 'producer.spawnId');
  if (producer.agent !== undefined) requireId(producer.agent, 'producer.agent');
  requireId(event.idempotencyKey, 'idempotencyKey', 512);
  if (event.name !== undefined) requireId(event.name, 'name', 1024);
  if (event.contentType !== undefined) {
    if (typeof event.contentType !== 'string' || !contentTypePattern.test(event.contentType))
      throw new InvalidOutputEventError('contentType', 'must be a media type such as text/plain');
    requireStorable(event.contentType, 'contentType');
  }
  if (event.ttlMs !== undefined && (!Number.isSafeInteger(event.ttlMs) || event.ttlMs <= 0)) {
    throw new InvalidOutputEventError('ttlMs', 'must be a positive integer');
  }
  validateLabels(event.labels);
  assertNotReserved(event);
  validateContent(event.content);
}

function validateLabels(labels: OutputEvent['labels']): void {
  if (labels === undefined) return;
  if (typeof labels !== 'object' || labels === null || Array.isArray(labels)) {
    throw new InvalidOutputEventError('labels', 'must be an object of strings');
  }
  assertLabelKeys(labels, 'labels');
  const entries = Object.entries(labels);
  if (entries.length > maxLabels)
    throw new InvalidOutputEventError('labels', `must have at most ${maxLabels} entries`);
  for (const [key, value] of entries) {
    requireId(key, 'labels key', 128);
    if (typeof value !== 'string' || value.length > 1024) {
      throw new InvalidOutputEventError(`labels.${key}`, 'must be a string of at most 1024 characters');
    }
    requireStorable(value, `labels.${key}`);
  }
}

/**
 * Checks the filters of a list or count query: each id and label must be text a store can
 * hold (no NUL, no lone surrogate), else {@link InvalidOutputEventError} naming the filter, so
 * every backend refuses what PostgreSQL could not even compare.
 *
 * @example
 * ```ts
 * validateListQuery({ runId: 'run\u0000' }); // throws InvalidOutputEventError('runId', 'must not contain a NUL character')
 * ```
 */
export function validateListQuery(query: ListQuery): void {
  for (const field of ['ownerId', 'runId', 'spawnId'] as const) {
    const value = query[field];
    if (value === undefined) continue;
    if (typeof value !== 'string') throw new InvalidOutputEventError(field, 'must be a string');
    requireStorable(value, field);
  }
  if (query.labels === undefined) return;
  if (typeof query.labels !== 'object' || query.labels === null)
    throw new InvalidOutputEventError('labels', 'must be an object of strings');
  for (const [key, value] of Object.entries(query.labels)) {
    requireStorable(key, 'labels key');
    if (typeof value !== 'string') throw new InvalidOutputEventError(`labels.${key}`, 'must be a string');
    requireStorable(value, `labels.${key}`);
  }
}

/**
 * Checks an idempotency lookup: scope ids and key must be non-empty text a store can hold.
 *
 * @example
 * ```ts
 * validateKeyLookup({ ownerId: 'o', runId: 'r', spawnId: 's' }, 'k1');
 * ```
 */
export function validateKeyLookup(scope: IdempotencyScope, idempotencyKey: string): void {
  if (typeof scope !== 'object' || scope === null)
    throw new InvalidOutputEventError('scope', 'must be an object');
  requireId(scope.ownerId, 'ownerId');
  requireId(scope.runId, 'runId');
  requireId(scope.spawnId, 'spawnId');
  requireId(idempotencyKey, 'idempotencyKey', 512);
}

function validateContent(content: OutputEvent['content']): void {
  if (typeof content !== 'object' || content === null)
    throw new InvalidOutputEventError('content', 'must be an object');
  switch (content.kind) {
    case 'text':
      if (typeof content.text !== 'string')
        throw new InvalidOutputEventError('content.text', 'must be a string');
      return;
    case 'json':
      if (content.value === undefined)
        throw new InvalidOutputEventError('content.value', 'must be a JSON value');
      return;
    case 'bytes':
      if (!(content.bytes instanceof Uint8Array))
        throw new InvalidOutputEventError('content.bytes', 'must be a Uint8Array');
      return;
    case 'file':
      if (typeof content.path !== 'string' || content.path.length === 0) {
        throw new InvalidOutputEventError('content.path', 'must be a non-empty string');
      }
      return;
    case 'stream':
      if (typeof content.stream?.[Symbol.asyncIterator] !== 'function') {
        throw new InvalidOutputEventError('content.stream', 'must be an async iterable of bytes');
      }
      return;
    default:
      throw new InvalidOutputEventError('content.kind', 'must be one of text, json, bytes, file, stream');
  }
}
