import type { JsonObject, JsonValue } from '@wharf/common';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ContextLog } from './context-log.js';
import { isJsonObject } from './json.js';
import { formatReference, type Reference } from './path.js';
import { scanResolve } from './scan-resolve.js';
import type { ContextMessage, OutputMethod } from './schemas.js';
import { messageWrites, valueAt } from './writes.js';

const kinds = ['data', 'state'] as const;
const instances = [undefined, 'a', 'b'] as const;

function outcome(work: () => unknown): unknown {
  try {
    return work();
  } catch (error) {
    return { error: (error as Error).message };
  }
}

function message(options: {
  kind: string;
  instance: string | undefined;
  path: readonly string[] | undefined;
  method: OutputMethod | undefined;
  value: JsonValue;
}): ContextMessage {
  let data = options.value;
  for (const segment of [...(options.path ?? [])].reverse()) data = { [segment]: data };
  const result: ContextMessage = { type: options.kind, data };
  if (options.path !== undefined) result._path = options.path.join('.');
  if (options.method !== undefined) result._outputMethod = options.method;
  if (options.instance !== undefined) result._instance = options.instance;
  return result;
}

/** A message whose value suits its method: a merge gets an object, a concat an array. */
function fittedMessage(options: Parameters<typeof message>[0]): ContextMessage {
  const { method, value } = options;
  if (method === 'merge' && !isJsonObject(value)) return message({ ...options, value: { a: value } });
  if (method === 'concat' && !Array.isArray(value)) return message({ ...options, value: [value] });
  return message(options);
}

// Any shape: writes of every method at random paths, hand-written messages, instances. The
// index must agree with the plain scan, type-mismatch errors included.
const segment = fc.constantFrom('a', 'b', '0', '1');
const anyPath = fc.array(segment, { maxLength: 3 });
const scalar = fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constantFrom('x', 'y', null, true));
const anyValue: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    scalar,
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(segment, tie('value'), { maxKeys: 3 }),
  ),
})).value;
const anyMessage = fc
  .record({
    kind: fc.constantFrom(...kinds),
    instance: fc.constantFrom(...instances),
    method: fc.constantFrom<OutputMethod | undefined>(undefined, 'set', 'merge', 'push', 'concat'),
    path: fc.option(anyPath, { nil: undefined }),
    value: anyValue,
  })
  .map(fittedMessage);
// `_path` messages the catch-up indexes along the keys of `data` (object paths of ASCII keys),
// nested in each other so that a path written as a leaf later gets children.
const alongDataMessage = fc
  .record({
    kind: fc.constantFrom(...kinds),
    instance: fc.constantFrom(...instances),
    method: fc.constantFrom<OutputMethod | undefined>(undefined, 'set', 'merge', 'push', 'concat'),
    path: fc.array(segment, { minLength: 1, maxLength: 3 }),
    value: anyValue,
  })
  .map(fittedMessage);
const query = fc.record({
  reference: fc.record({ kind: fc.constantFrom(...kinds), path: fc.array(segment, { maxLength: 4 }) }),
  instance: fc.constantFrom(...instances),
});

// Schema-consistent writes (objects stay objects, arrays stay arrays), so no type mismatch can
// arise and a full forward replay of the whole context is the ground truth.
const leafScalar = fc.oneof(fc.integer({ min: 0, max: 9 }), fc.constantFrom('x', 'y', null));
const prefs = fc.record({ theme: leafScalar, lang: leafScalar }, { requiredKeys: [] });
const tags = fc.array(leafScalar, { maxLength: 3 });
const user = fc.record({ name: leafScalar, tags, prefs }, { requiredKeys: [] });
const root = fc.record({ user, count: leafScalar, log: tags }, { requiredKeys: [] });
const objectNode = (path: string[], shape: fc.Arbitrary<JsonObject>) =>
  fc
    .tuple(fc.constantFrom<OutputMethod>('set', 'merge'), shape)
    .map(([method, value]) => ({ path, method, value }));
const arrayNode = (path: string[]) =>
  fc.oneof(
    tags.map((value) => ({ path, method: 'set' as OutputMethod, value: value as JsonValue })),
    leafScalar.map((value) => ({ path, method: 'push' as OutputMethod, value: value as JsonValue })),
    tags.map((value) => ({ path, method: 'concat' as OutputMethod, value: value as JsonValue })),
  );
const scalarNode = (path: string[]) =>
  leafScalar.map((value) => ({ path, method: 'set' as OutputMethod, value: value as JsonValue }));
const typedWrite = fc.oneof(
  objectNode([], root as fc.Arbitrary<JsonObject>),
  objectNode(['user'], user as fc.Arbitrary<JsonObject>),
  objectNode(['user', 'prefs'], prefs as fc.Arbitrary<JsonObject>),
  scalarNode(['user', 'name']),
  scalarNode(['user', 'prefs', 'lang']),
  scalarNode(['count']),
  arrayNode(['user', 'tags']),
  arrayNode(['log']),
);
const typedMessage = fc
  .record({
    kind: fc.constantFrom(...kinds),
    instance: fc.constantFrom(...instances),
    handWritten: fc.boolean(),
    write: typedWrite,
    raw: root,
  })
  .map(({ kind, instance, handWritten, write, raw }) =>
    handWritten
      ? message({ kind, instance, path: undefined, method: undefined, value: raw as JsonValue })
      : message({ kind, instance, path: write.path, method: write.method, value: write.value }),
  );
const typedQuery = fc.record({
  reference: fc.record({
    kind: fc.constantFrom(...kinds),
    path: fc.constantFrom(
      [],
      ['user'],
      ['user', 'name'],
      ['user', 'tags'],
      ['user', 'tags', '0'],
      ['user', 'tags', '2'],
      ['user', 'prefs'],
      ['user', 'prefs', 'lang'],
      ['user', 'prefs', 'theme'],
      ['count'],
      ['log'],
      ['log', '1'],
      ['missing'],
      ['user', 'name', 'deeper'],
    ),
  }),
  instance: fc.constantFrom(...instances),
});

/** The straightforward reference: replay every visible message, oldest first, into one document. */
function replay(messages: readonly ContextMessage[], reference: Reference, instance: string | undefined) {
  const holder: Record<string, JsonValue> = {};
  for (const entry of messages) {
    if (entry.type !== reference.kind) continue;
    if (entry._instance !== undefined && entry._instance !== instance) continue;
    for (const write of messageWrites(entry)) {
      let container = holder;
      let key = 'doc';
      for (const part of write.path) {
        const next = container[key];
        if (!isJsonObject(next)) container[key] = {};
        container = container[key] as Record<string, JsonValue>;
        key = part;
      }
      const current = container[key];
      const copy = JSON.parse(JSON.stringify(write.value)) as JsonValue;
      if (write.method === 'set') container[key] = copy;
      else if (write.method === 'merge') container[key] = deepMerge(current, copy);
      else if (write.method === 'push')
        container[key] = [...((current as JsonValue[] | undefined) ?? []), copy];
      else container[key] = [...((current as JsonValue[] | undefined) ?? []), ...(copy as JsonValue[])];
    }
  }
  const value = holder.doc === undefined ? undefined : valueAt(holder.doc, reference.path);
  return value === undefined ? { found: false } : { found: true, value };
}

function deepMerge(target: JsonValue | undefined, source: JsonValue): JsonValue {
  if (!isJsonObject(target) || !isJsonObject(source)) return source;
  const result: Record<string, JsonValue> = { ...target };
  for (const [key, value] of Object.entries(source)) result[key] = deepMerge(result[key], value);
  return result;
}

// Messages append must refuse (a _path its data does not hold, a merge of a non-object, a
// concat of a non-array) or take while writing nothing (no data).
const oddMessage = fc.constantFrom<ContextMessage>(
  { type: 'data', data: { a: 1 }, _path: 'b' },
  { type: 'data', data: { a: 1 }, _path: 'a.b' },
  { type: 'state', data: 'x', _outputMethod: 'merge' },
  { type: 'data', data: { a: 'x' }, _path: 'a', _outputMethod: 'concat' },
  { type: 'data', _path: 'a' },
  { type: 'data', _path: 'a', _outputMethod: 'merge' },
);

// `_path` messages the catch-up cannot index along the keys of `data` (an array on the way, a
// non-ASCII key, the root path), so they take the general route beside the others.
const generalRouteMessage = fc.oneof(
  fc
    .tuple(fc.constantFrom(...kinds), fc.constantFrom(...instances), anyValue, fc.constantFrom(0, 1))
    .map(([kind, instance, value, index]) => {
      const items: JsonValue[] = [null, null];
      items[index] = value;
      const result: ContextMessage = { type: kind, data: { a: items }, _path: `a.${index}` };
      if (instance !== undefined) result._instance = instance;
      return result;
    }),
  fc
    .tuple(fc.constantFrom(...kinds), scalar)
    .map(([kind, value]): ContextMessage => ({ type: kind, data: { é: { a: value } }, _path: 'é.a' })),
  fc
    .tuple(fc.constantFrom(...kinds), fc.dictionary(segment, scalar, { maxKeys: 2 }))
    .map(([kind, value]): ContextMessage => ({ type: kind, data: value, _path: '', _outputMethod: 'merge' })),
);
const mixedMessage = fc.oneof(anyMessage, anyMessage, generalRouteMessage, oddMessage);
const queryWithOddKeys = fc.oneof(
  query,
  fc.record({
    reference: fc.record({
      kind: fc.constantFrom(...kinds),
      path: fc.constantFrom(['é'], ['é', 'a'], ['a', '0'], ['a', '1']),
    }),
    instance: fc.constantFrom(...instances),
  }),
);

/** Every query resolves through the index exactly as the plain scan of `messages` does, errors included. */
function expectLikeScan(
  log: ContextLog,
  messages: readonly ContextMessage[],
  queries: readonly { reference: Reference; instance: string | undefined }[],
): void {
  for (const { reference, instance } of queries) {
    const options = instance === undefined ? {} : { instance };
    const indexed = outcome(() => log.resolve(reference, options));
    const scanned = outcome(() => scanResolve(messages, reference, options));
    expect(indexed, formatReference(reference)).toEqual(scanned);
  }
}

/** Appends `batch` one by one or with `appendAll` (all or nothing); returns the messages taken. */
function appendBatch(log: ContextLog, batch: readonly ContextMessage[], together: boolean): ContextMessage[] {
  if (together) return Array.isArray(outcome(() => log.appendAll(batch))) ? [...batch] : [];
  return batch.filter((entry) => typeof outcome(() => log.append(entry)) === 'number');
}

describe('path index', () => {
  it('resolves exactly like the plain scan on random contexts (errors included)', () => {
    fc.assert(
      fc.property(
        fc.array(anyMessage, { maxLength: 40 }),
        fc.array(query, { minLength: 1, maxLength: 15 }),
        (messages, queries) => {
          const log = new ContextLog(messages);
          expectLikeScan(log, messages, queries);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('resolves like the plain scan when resolves come between appends (the index catches up)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.oneof(anyMessage, anyMessage, oddMessage), fc.array(query, { maxLength: 2 })), {
          maxLength: 40,
        }),
        (steps) => {
          const log = new ContextLog();
          const appended: ContextMessage[] = [];
          for (const [message, queries] of steps) {
            const accepted = outcome(() => log.append(message));
            if (typeof accepted === 'number') appended.push(message);
            expect(log.length).toBe(appended.length);
            expectLikeScan(log, appended, queries);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('resolves like the plain scan with batches, both catch-up routes and reads between them', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            batch: fc.array(mixedMessage, { minLength: 1, maxLength: 6 }),
            together: fc.boolean(),
            queries: fc.array(queryWithOddKeys, { maxLength: 3 }),
          }),
          { maxLength: 12 },
        ),
        (steps) => {
          const log = new ContextLog();
          const appended: ContextMessage[] = [];
          for (const { batch, together, queries } of steps) {
            appended.push(...appendBatch(log, batch, together));
            expect(log.length).toBe(appended.length);
            expectLikeScan(log, appended, queries);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('resolves like the plain scan right after a long run of appends (one catch-up for all)', () => {
    fc.assert(
      fc.property(
        fc.array(mixedMessage, { minLength: 50, maxLength: 400 }),
        fc.array(queryWithOddKeys, { minLength: 1, maxLength: 20 }),
        (messages, queries) => {
          const log = new ContextLog();
          const appended = appendBatch(log, messages, false);
          expectLikeScan(log, appended, queries);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('resolves like the plain scan when long runs of writes are indexed in one sorted batch', () => {
    // Runs of 64 writes and more found along `data` fill the index node by node; a message
    // taking the general route now and then cuts a run in two.
    const longRun = fc.array(fc.oneof({ weight: 30, arbitrary: alongDataMessage }, generalRouteMessage), {
      minLength: 64,
      maxLength: 300,
    });
    fc.assert(
      fc.property(
        fc.array(longRun, { minLength: 1, maxLength: 3 }),
        fc.array(queryWithOddKeys, { minLength: 1, maxLength: 20 }),
        (runs, queries) => {
          const log = new ContextLog();
          const appended: ContextMessage[] = [];
          for (const run of runs) {
            appended.push(...appendBatch(log, run, false));
            expectLikeScan(log, appended, queries);
          }
        },
      ),
      { numRuns: 100 },
    );
  });

  it('resolves like a full forward replay of the whole context', () => {
    fc.assert(
      fc.property(
        fc.array(typedMessage, { maxLength: 40 }),
        fc.array(typedQuery, { minLength: 1, maxLength: 15 }),
        (messages, queries) => {
          const log = new ContextLog(messages);
          for (const { reference, instance } of queries) {
            expect(
              log.resolve(reference, instance === undefined ? {} : { instance }),
              formatReference(reference),
            ).toEqual(replay(messages, reference, instance));
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
