import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import { type Context, Hono } from 'hono';
import { InvalidOutputEventError, OutputForbiddenError, OutputTooLargeError } from '../errors.js';
import { isOutId } from '../ids.js';
import { assertLabelKeys } from '../label-keys.js';
import { jsonEmitRequestSchema, type SpawnTokenClaims } from '../schemas.js';
import type { ContentRef, OutputRecord, OutputStore } from '../types.js';
import { errorHeaders, toHttpError } from './http-error.js';
import { IntakeCore, smallBodyBytes } from './intake-core.js';
import type { IntakeAppOptions } from './intake-options.js';
import { jsonNestingDepth } from './json-depth.js';
import { jsonEnvelopeType } from './json-envelope-type.js';
import { parseRangeHeader } from './range-header.js';
import { type DraftEvent, rawEventMeta } from './raw-event-meta.js';

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
  return intakeApp(new IntakeCore(options));
}

/**
 * The Hono app over an {@link IntakeCore} it may share with the server's EMIT fast path.
 *
 * @example
 * ```ts
 * const core = new IntakeCore({ store, secret });
 * const listener = getRequestListener(intakeApp(core).fetch, { hostname: '127.0.0.1' });
 * ```
 */
export function intakeApp(core: IntakeCore): Hono<IntakeEnv> {
  const { store } = core;
  const app = new Hono<IntakeEnv>();

  app.onError((error, context) => {
    const { status, body } = toHttpError(error);
    for (const [name, value] of errorHeaders(error, status)) context.header(name, value);
    return context.json(body, status);
  });
  app.notFound((context) => context.json({ error: { code: 'NOT_FOUND', message: 'no such route' } }, 404));
  app.get('/healthz', (context) => context.json({ status: 'ok' }));

  // One middleware for the concurrency cap and the token: each layer is paid on every request.
  app.use('/v1/*', async (context, next) => {
    core.admit();
    try {
      context.set('claims', core.claimsOf(context.req.header('authorization')));
      await next();
    } finally {
      core.leave();
    }
  });

  app.post('/v1/outputs', async (context) => {
    const claims = context.get('claims');
    const limit = core.bodyLimit(claims);
    const declared = context.req.header('content-length');
    if (declared !== undefined && Number(declared) > limit)
      throw new OutputTooLargeError(limit, 'request body');
    const isJson = (context.req.header('content-type') ?? '').startsWith(jsonEnvelopeType);
    const draft = isJson
      ? await readJsonEvent(context, Math.min(limit * 2, core.maxJsonBytes), core.maxJsonDepth)
      : await readRawEvent(context, limit);
    const { ref, record, created } = await core.storeDraft(claims, draft);
    context.header('Location', `/v1/outputs/${ref.outId}`);
    return context.json({ ref, record }, created ? 201 : 200);
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

async function readRawEvent(context: Context<IntakeEnv>, limit: number): Promise<DraftEvent> {
  const meta = rawEventMeta((name) => header(context, name));
  const declared = Number(context.req.header('content-length') ?? Number.NaN);
  let content: ContentRef;
  if (declared <= smallBodyBytes) {
    const bytes = new Uint8Array(await context.req.arrayBuffer());
    if (bytes.byteLength > limit) throw new OutputTooLargeError(limit, 'request body');
    content = { kind: 'bytes', bytes };
  } else {
    content = { kind: 'stream', stream: limited(context.req.raw.body, limit) };
  }
  return { ...meta, content };
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
