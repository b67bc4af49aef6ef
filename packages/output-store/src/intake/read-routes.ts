import { pipeline } from 'node:stream/promises';
import { InvalidOutputEventError, OutputForbiddenError } from '../errors.js';
import { isOutId } from '../ids.js';
import type { SpawnTokenClaims } from '../schemas.js';
import type { OutputRecord, OutputStore } from '../types.js';
import type { IntakeExchange } from './intake-exchange.js';
import { parseRangeHeader } from './range-header.js';

/**
 * `GET /v1/outputs/:id`: the record of an output the token may read (its spawn's own, one of
 * its `readRefs`, or with `readRun` any of its run's), else 403; 404 with the reason when gone.
 *
 * @example
 * ```ts
 * await recordRoute(store, exchange, claims, 'out_3fZ8kQ1xP0aLm2Vb');
 * ```
 */
export async function recordRoute(
  store: OutputStore,
  exchange: IntakeExchange,
  claims: SpawnTokenClaims,
  outId: string,
): Promise<void> {
  exchange.answerJson(200, await readableRecord(store, outId, claims));
}

/**
 * `GET /v1/outputs/:id/body`: the body of an output the token may read, streamed, with
 * `Content-Type` (the record's), `Content-Length`, `Accept-Ranges`, and an `ETag` of its
 * SHA-256; one `Range: bytes=` range is answered `206` with `Content-Range`, a range outside
 * the body `416` with `Content-Range: bytes *\/size`.
 *
 * @example
 * ```ts
 * await bodyRoute(store, exchange, claims, 'out_3fZ8kQ1xP0aLm2Vb');
 * ```
 */
export async function bodyRoute(
  store: OutputStore,
  exchange: IntakeExchange,
  claims: SpawnTokenClaims,
  outId: string,
): Promise<void> {
  const record = await readableRecord(store, outId, claims);
  const range = parseRangeHeader(exchange.headers.range, record.sizeBytes);
  if (range.kind === 'unsatisfiable') {
    exchange.answerJson(
      416,
      {
        error: {
          code: 'INVALID_RANGE',
          message: `range not satisfiable for a body of ${record.sizeBytes} bytes`,
        },
      },
      [['Content-Range', `bytes */${record.sizeBytes}`]],
    );
    return;
  }
  const opened = await store.openBody({ outId: record.outId }, range.kind === 'partial' ? range : undefined);
  const headers: Record<string, string> = {
    'Content-Type': record.contentType,
    'Content-Length': String(opened.end - opened.start),
    'Accept-Ranges': 'bytes',
    ETag: `"${record.sha256}"`,
  };
  if (range.kind === 'partial')
    headers['Content-Range'] = `bytes ${opened.start}-${opened.end - 1}/${record.sizeBytes}`;
  const { response } = exchange;
  response.writeHead(range.kind === 'partial' ? 206 : 200, headers);
  if (exchange.request.method === 'HEAD') {
    opened.stream.destroy();
    response.end();
    return;
  }
  // Streams on without holding the request's concurrency slot (a body in flight holds no
  // memory of the intake's); one that fails half way cannot be answered any more: the
  // connection is cut.
  void pipeline(opened.stream, response).catch(() => response.destroy());
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
  const readableRun = sameRun || claims.readRuns?.includes(record.producer.runId) === true;
  if (!own && !(readableRun && claims.readRun === true) && !claims.readRefs.includes(outId)) {
    throw new OutputForbiddenError(
      `output ${outId} is neither this spawn's own output nor one of its input refs`,
    );
  }
  return record;
}
