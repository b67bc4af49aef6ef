import type { IncomingMessage } from 'node:http';
import { InvalidOutputEventError, OutputTooLargeError } from '../errors.js';
import { assertLabelKeys } from '../label-keys.js';
import { jsonEmitRequestSchema, type SpawnTokenClaims } from '../schemas.js';
import type { ContentRef } from '../types.js';
import { readDeclaredBody } from './declared-body.js';
import { type IntakeCore, type StoredEmit, smallBodyBytes } from './intake-core.js';
import type { IntakeExchange } from './intake-exchange.js';
import type { IntakeHeaderName } from './intake-headers.js';
import { jsonNestingDepth } from './json-depth.js';
import { jsonEnvelopeType } from './json-envelope-type.js';
import { type DraftEvent, rawEventMeta } from './raw-event-meta.js';
import { type UploadWatch, watchUpload } from './upload-pace.js';

const digits = /^\d+$/;

/**
 * `POST /v1/outputs`: stores the request's body as an output of the token's spawn and answers
 * `201` (new) or `200` (a replay of a stored key) with its ref and record, and a `Location`.
 * The body is the raw output with metadata headers (`Idempotency-Key`, `X-Wharf-Name`,
 * `X-Wharf-Labels`, `X-Wharf-Ttl-Ms`, `Content-Type`), or a JSON envelope sent as
 * `application/vnd.wharf.output+json`. Every check that can refuse the request before its body
 * is read (declared size, metadata headers) runs first, and only then is a client that waits
 * for `100 Continue` told to send it. A raw body declared at most 64 KiB is read into one
 * buffer; a larger or chunked one streams into the store within the token's body limit.
 * Each spawn (and run) has at most its `maxUploadsPerSpawn` (`maxUploadsPerRun`) uploads in
 * progress (beyond: 429), and a body slower than the intake's minimum pace after its grace
 * period is cut with 408 `TIMEOUT`, nothing of it stored.
 *
 * @example
 * ```ts
 * await emitRoute(core, exchange, core.claimsOf(exchange.headers.authorization));
 * ```
 */
export async function emitRoute(
  core: IntakeCore,
  exchange: IntakeExchange,
  claims: SpawnTokenClaims,
): Promise<void> {
  const release = core.uploads.take(claims);
  try {
    await emitBody(core, exchange, claims);
  } finally {
    release();
  }
}

async function emitBody(core: IntakeCore, exchange: IntakeExchange, claims: SpawnTokenClaims): Promise<void> {
  const { headers, request } = exchange;
  const limit = core.bodyLimit(claims);
  const declared = headers['content-length'];
  if (declared !== undefined && Number(declared) > limit)
    throw new OutputTooLargeError(limit, 'request body');
  let watch: UploadWatch | undefined;
  let stored: StoredEmit;
  try {
    let draft: DraftEvent;
    if ((headers['content-type'] ?? '').startsWith(jsonEnvelopeType)) {
      exchange.readyForBody();
      watch = watchUpload(request, core.pace);
      const jsonLimit = Math.min(limit * 2, core.maxJsonBytes);
      draft = await readJsonEvent(paced(request, jsonLimit, watch), core.maxJsonDepth);
    } else {
      const meta = rawEventMeta((name) => headers[name as IntakeHeaderName] || undefined);
      exchange.readyForBody();
      watch = watchUpload(request, core.pace);
      let content: ContentRef;
      if (
        declared !== undefined &&
        headers['transfer-encoding'] === undefined &&
        digits.test(declared) &&
        Number(declared) <= smallBodyBytes
      ) {
        const bytes = await readDeclaredBody(request, Number(declared), watch.cut);
        if (bytes.byteLength > limit) throw new OutputTooLargeError(limit, 'request body');
        content = { kind: 'bytes', bytes };
      } else {
        content = { kind: 'stream', stream: paced(request, limit, watch) };
      }
      draft = { ...meta, content };
    }
    stored = await core.storeDraft(claims, draft);
  } catch (error) {
    // A cut body fails the store's read of it: the cut is the answer, whatever the store made of it.
    throw watch?.timedOut ?? error;
  } finally {
    watch?.stop();
  }
  const { ref, record, created } = stored;
  exchange.answerJson(created ? 201 : 200, { ref, record }, [['Location', `/v1/outputs/${ref.outId}`]]);
}

/**
 * The request's body chunks, refused past `limit`, and cut (an `UploadTimeoutError`) when the
 * watch finds the body below the intake's minimum pace. Leaving the loop early (too large, too
 * slow, or the store gave up) leaves the request whole: destroying it would cut the connection
 * before the answer (a 413, a 408, a 403…) could be written.
 */
async function* paced(
  request: IncomingMessage,
  limit: number,
  watch: UploadWatch,
): AsyncGenerator<Uint8Array> {
  const chunks = (request.iterator({ destroyOnReturn: false }) as AsyncIterableIterator<Uint8Array>)[
    Symbol.asyncIterator
  ]();
  let total = 0;
  for (;;) {
    const next = await Promise.race([chunks.next(), watch.cut]);
    if (next.done) return;
    total += next.value.byteLength;
    if (total > limit) throw new OutputTooLargeError(limit, 'request body');
    yield next.value;
  }
}

async function readJsonEvent(body: AsyncIterable<Uint8Array>, maxDepth: number): Promise<DraftEvent> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of body) chunks.push(chunk);
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
