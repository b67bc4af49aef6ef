import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { type Context, Hono } from 'hono';
import {
  IntakeBusyError,
  InvalidOutputEventError,
  OutputForbiddenError,
  OutputTooLargeError,
  OutputUnauthorizedError,
} from '../errors.js';
import { isOutId } from '../ids.js';
import { assertLabelKeys } from '../label-keys.js';
import { jsonEmitRequestSchema, labelsSchema, type SpawnTokenClaims } from '../schemas.js';
import type { TokenSecret } from '../spawn-token.js';
import type { EmittedOutput } from '../sqlite/sqlite-output-store.js';
import type { ContentRef, OutputEvent, OutputRecord, OutputRef, OutputStore } from '../types.js';
import { toHttpError } from './http-error.js';
import { jsonNestingDepth } from './json-depth.js';
import { parseRangeHeader } from './range-header.js';
import { SpawnQuota } from './spawn-quota.js';
import { VerifiedTokens } from './verified-tokens.js';

/**
 * Options of {@link createIntakeApp}.
 *
 * @example
 * ```ts
 * const options: IntakeAppOptions = { store, secret: process.env.WHARF_INTAKE_SECRET ?? '' };
 * ```
 */
export interface IntakeAppOptions {
  readonly store: OutputStore;
  /** HMAC secret(s) of the spawn tokens (at least 32 bytes each). */
  readonly secret: TokenSecret;
  /** Server-wide body cap, default 1 GiB; a token may lower it. */
  readonly maxBodyBytes?: number;
  /** Cap of a JSON request, default 1 MiB. */
  readonly maxJsonBytes?: number;
  /**
   * Deepest nesting of arrays and objects in a JSON envelope, the envelope itself included
   * (`{"content":{"kind":"json","value":[]}}` nests 3 deep); default 128. Deeper bodies are
   * refused with 400 before they are parsed.
   */
  readonly maxJsonDepth?: number;
  /**
   * `/v1` requests handled at once, default 32 (each may hold a JSON envelope of up to
   * `maxJsonBytes` in memory). Requests beyond it are refused at once with 503 and
   * `Retry-After: 1` ({@link IntakeBusyError}); `/healthz` is not counted.
   */
  readonly maxConcurrentRequests?: number;
  /**
   * Verified spawn tokens kept by their exact text so a spawn's next EMIT skips the HMAC and
   * claim checks (expiry is still checked on each request), default 1024; 0 verifies every time.
   */
  readonly verifiedTokenCacheSize?: number;
  readonly now?: () => number;
}

/** A store whose emit also answers the record and whether it created it (`SqliteOutputStore`). */
interface RecordingStore extends OutputStore {
  emitWithRecord(event: OutputEvent): Promise<EmittedOutput>;
}

function recordsEmits(store: OutputStore): store is RecordingStore {
  return typeof (store as Partial<RecordingStore>).emitWithRecord === 'function';
}

type IntakeEnv = { Variables: { claims: SpawnTokenClaims } };

/**
 * The intake HTTP API as a Hono app (mount it anywhere, or use `createIntakeServer`):
 * `POST /v1/outputs`, `GET /v1/outputs/:id`, `GET /v1/outputs/:id/body` (with `Range`),
 * `GET /healthz`. Every `/v1` call needs `Authorization: Bearer <spawn token>`. A POST is the raw
 * body with metadata headers, or a JSON envelope sent as `application/vnd.wharf.output+json`.
 *
 * @example
 * ```ts
 * const app = createIntakeApp({ store: new InMemoryOutputStore(), secret });
 * const response = await app.request('/healthz');
 * ```
 */
export function createIntakeApp(options: IntakeAppOptions): Hono<IntakeEnv> {
  const { store } = options;
  const now = options.now ?? Date.now;
  const maxBodyBytes = options.maxBodyBytes ?? 2 ** 30;
  const maxJsonBytes = options.maxJsonBytes ?? 2 ** 20;
  const maxJsonDepth = options.maxJsonDepth ?? 128;
  const maxConcurrentRequests = options.maxConcurrentRequests ?? 32;
  const quota = new SpawnQuota();
  const tokens = new VerifiedTokens(options.secret, options.verifiedTokenCacheSize ?? 1024);
  const app = new Hono<IntakeEnv>();
  let active = 0;

  app.onError((error, context) => {
    const { status, body } = toHttpError(error);
    if (status === 401) context.header('WWW-Authenticate', 'Bearer');
    if (IntakeBusyError.isInstance(error)) context.header('Retry-After', String(error.retryAfterSeconds));
    return context.json(body, status);
  });
  app.notFound((context) => context.json({ error: { code: 'NOT_FOUND', message: 'no such route' } }, 404));
  app.get('/healthz', (context) => context.json({ status: 'ok' }));

  // One middleware for the concurrency cap and the token: each layer is paid on every request.
  app.use('/v1/*', async (context, next) => {
    if (active >= maxConcurrentRequests) throw new IntakeBusyError(maxConcurrentRequests, 1);
    active += 1;
    try {
      const header = context.req.header('authorization');
      const token = header?.startsWith('Bearer ') ? header.slice(7).trim() : undefined;
      if (!token) throw new OutputUnauthorizedError('missing bearer token');
      context.set('claims', tokens.verify(token, now()));
      await next();
    } finally {
      active -= 1;
    }
  });

  app.post('/v1/outputs', async (context) => {
    const claims = context.get('claims');
    const limit = Math.min(maxBodyBytes, claims.maxOutputBytes);
    const declared = context.req.header('content-length');
    if (declared !== undefined && Number(declared) > limit)
      throw new OutputTooLargeError(limit, 'request body');
    const isJson = (context.req.header('content-type') ?? '').startsWith(jsonEnvelopeType);
    const draft = isJson
      ? await readJsonEvent(context, Math.min(limit * 2, maxJsonBytes), maxJsonDepth)
      : await readRawEvent(context, limit);
    const producer = {
      ownerId: claims.ownerId,
      runId: claims.runId,
      spawnId: claims.spawnId,
      ...(claims.agent ? { agent: claims.agent } : {}),
    };
    const scope = { ownerId: claims.ownerId, runId: claims.runId, spawnId: claims.spawnId };
    if (recordsEmits(store)) {
      // No lookup before storing: the quota looks keys up only when it seems full, and the
      // store says whether the key was new (201) or a replay (200) and answers the record.
      const release = await quota.reserve(
        claims,
        draft.idempotencyKey,
        () => store.count(scope),
        async (key) => (await store.findByIdempotencyKey(producer, key)) !== undefined,
      );
      let emitted: EmittedOutput;
      try {
        emitted = await store.emitWithRecord({ ...draft, producer });
      } finally {
        release();
      }
      context.header('Location', `/v1/outputs/${emitted.ref.outId}`);
      return context.json({ ref: emitted.ref, record: emitted.record }, emitted.created ? 201 : 200);
    }
    const existing = await store.findByIdempotencyKey(producer, draft.idempotencyKey);
    const release = existing
      ? undefined
      : await quota.reserve(claims, draft.idempotencyKey, () => store.count(scope));
    let ref: OutputRef;
    try {
      ref = await store.emit({ ...draft, producer });
    } finally {
      release?.();
    }
    const record = await store.stat(ref);
    context.header('Location', `/v1/outputs/${ref.outId}`);
    return context.json({ ref, record }, existing ? 200 : 201);
  });

  app.get('/v1/outputs/:id', async (context) => {
    return context.json(await readableRecord(store, context.req.param('id'), context.get('claims')));
  });

  app.get('/v1/outputs/:id/body', async (context) => {
    const record = await readableRecord(store, context.req.param('id'), context.get('claims'));
    const range = parseRangeHeader(context.req.header('range'), record.sizeBytes);
    if (range.kind === 'unsatisfiable') {
      return context.json(
        {
          error: {
            code: 'INVALID_RANGE',
            message: `range not satisfiable for a body of ${record.sizeBytes} bytes`,
          },
        },
        416,
        { 'Content-Range': `bytes */${record.sizeBytes}` },
      );
    }
    const opened = await store.openBody(
      { outId: record.outId },
      range.kind === 'partial' ? range : undefined,
    );
    const headers: Record<string, string> = {
      'Content-Type': record.contentType,
      'Content-Length': String(opened.end - opened.start),
      'Accept-Ranges': 'bytes',
      ETag: `"${record.sha256}"`,
    };
    if (range.kind === 'partial')
      headers['Content-Range'] = `bytes ${opened.start}-${opened.end - 1}/${record.sizeBytes}`;
    const body = Readable.toWeb(opened.stream) as unknown as ReadableStream<Uint8Array>;
    return new Response(body, { status: range.kind === 'partial' ? 206 : 200, headers });
  });

  return app;
}

type DraftEvent = Omit<OutputEvent, 'producer'>;

/**
 * Media type of the JSON envelope for small outputs. Any other type (including
 * `application/json`) is taken as the raw body and stored with that type.
 *
 * @example
 * ```ts
 * await fetch(`${url}/v1/outputs`, { method: 'POST', headers: { 'content-type': jsonEnvelopeType, authorization },
 *   body: JSON.stringify({ idempotencyKey: 'k1', content: { kind: 'text', text: 'hi' } }) });
 * ```
 */
export const jsonEnvelopeType = 'application/vnd.wharf.output+json';

/** Bodies declared at most this large are read whole instead of streamed. */
const smallBodyBytes = 64 * 1024;

async function readableRecord(
  store: OutputStore,
  outId: string,
  claims: SpawnTokenClaims,
): Promise<OutputRecord> {
  if (!isOutId(outId)) throw new InvalidOutputEventError('id', 'is not an output id');
  const record = await store.stat({ outId });
  if (record.producer.ownerId !== claims.ownerId)
    throw new OutputForbiddenError(`output ${outId} belongs to another owner`);
  const sameRun = record.producer.runId === claims.runId;
  const own = sameRun && record.producer.spawnId === claims.spawnId;
  if (!own && !(sameRun && claims.readRun === true) && !claims.readRefs.includes(outId)) {
    throw new OutputForbiddenError(
      `output ${outId} is neither this spawn's own output nor one of its input refs`,
    );
  }
  return record;
}

function header(context: Context<IntakeEnv>, name: string): string | undefined {
  const value = context.req.header(name);
  return value === undefined || value === '' ? undefined : value;
}

function decoded(value: string | undefined, field: string): string | undefined {
  if (value === undefined) return undefined;
  try {
    return decodeURIComponent(value);
  } catch {
    throw new InvalidOutputEventError(field, 'is not valid percent-encoding');
  }
}

async function readRawEvent(context: Context<IntakeEnv>, limit: number): Promise<DraftEvent> {
  const idempotencyKey = decoded(header(context, 'idempotency-key'), 'Idempotency-Key');
  if (!idempotencyKey) throw new InvalidOutputEventError('Idempotency-Key', 'header is required');
  const name = decoded(header(context, 'x-wharf-name'), 'X-Wharf-Name');
  const contentType = header(context, 'content-type');
  const ttl = header(context, 'x-wharf-ttl-ms');
  const ttlMs = ttl === undefined ? undefined : Number(ttl);
  if (ttl !== undefined && !/^\d+$/.test(ttl))
    throw new InvalidOutputEventError('X-Wharf-Ttl-Ms', 'must be a positive integer');
  const labelHeader = header(context, 'x-wharf-labels');
  let labels: Record<string, string> | undefined;
  if (labelHeader !== undefined) {
    const entries = Object.fromEntries(new URLSearchParams(labelHeader));
    assertLabelKeys(entries, 'X-Wharf-Labels');
    const parsed = labelsSchema.safeParse(entries);
    if (!parsed.success)
      throw new InvalidOutputEventError('X-Wharf-Labels', 'must be key=value pairs joined by &');
    labels = parsed.data;
  }
  const declared = Number(context.req.header('content-length') ?? Number.NaN);
  let content: ContentRef;
  if (declared <= smallBodyBytes) {
    const bytes = new Uint8Array(await context.req.arrayBuffer());
    if (bytes.byteLength > limit) throw new OutputTooLargeError(limit, 'request body');
    content = { kind: 'bytes', bytes };
  } else {
    content = { kind: 'stream', stream: limited(context.req.raw.body, limit) };
  }
  return {
    idempotencyKey,
    content,
    ...(name === undefined ? {} : { name }),
    ...(contentType === undefined ? {} : { contentType }),
    ...(labels === undefined ? {} : { labels }),
    ...(ttlMs === undefined ? {} : { ttlMs }),
  };
}

async function* limited(body: ReadableStream<Uint8Array> | null, limit: number): AsyncGenerator<Uint8Array> {
  if (!body) return;
  let total = 0;
  for await (const chunk of Readable.fromWeb(body as unknown as NodeReadableStream<Uint8Array>)) {
    total += (chunk as Uint8Array).byteLength;
    if (total > limit) throw new OutputTooLargeError(limit, 'request body');
    yield chunk as Uint8Array;
  }
}

async function readJsonEvent(
  context: Context<IntakeEnv>,
  limit: number,
  maxDepth: number,
): Promise<DraftEvent> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of limited(context.req.raw.body, limit)) chunks.push(chunk);
  const text = Buffer.concat(chunks).toString('utf8');
  if (jsonNestingDepth(text, maxDepth) > maxDepth) {
    throw new InvalidOutputEventError(
      'body',
      `nests arrays and objects deeper than the limit of ${maxDepth} levels (maxJsonDepth)`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new InvalidOutputEventError('body', 'is not valid JSON');
  }
  if (typeof value === 'object' && value !== null)
    assertLabelKeys((value as { labels?: unknown }).labels, 'labels');
  const parsed = jsonEmitRequestSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new InvalidOutputEventError(issue?.path.join('.') || 'body', issue?.message ?? 'is invalid');
  }
  const { content, ...rest } = parsed.data;
  // The schema's copy of a JSON value drops `__proto__` keys; the parsed original keeps them.
  const stored: ContentRef =
    content.kind === 'bytes'
      ? { kind: 'bytes', bytes: Buffer.from(content.base64, 'base64') }
      : content.kind === 'json'
        ? { kind: 'json', value: (value as { content: { value: unknown } }).content.value }
        : content;
  return { ...rest, content: stored } as DraftEvent;
}
