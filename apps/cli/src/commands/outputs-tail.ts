import { TextDecoder } from 'node:util';
import {
  isOutId,
  isStreamId,
  type StreamEvent,
  type StreamTarget,
  streamLabel,
  tailStream,
} from '@wharf/output-store';
import { CliError } from '../cli-error.js';
import { openData } from '../open-data.js';
import type { CliIo } from '../output.js';
import { outputReadCliError } from '../output-read-error.js';

/** Options of {@link outputsTail}. */
export interface OutputsTailOptions {
  dataDir: string;
  follow: boolean;
  json: boolean;
  /** How often to look for new chunks while following (default the reader's, 50 ms). */
  intervalMs?: number;
  /** Stops following (Ctrl-C). */
  signal?: AbortSignal;
}

function jsonLine(event: StreamEvent, stream: string, decoder: TextDecoder): Record<string, unknown> {
  switch (event.type) {
    case 'chunk':
      return {
        type: 'chunk',
        stream,
        attempt: event.attempt,
        seq: event.seq,
        text: decoder.decode(event.bytes, { stream: true }),
      };
    case 'sealed':
      return { type: 'sealed', stream, attempt: event.attempt, outId: event.ref.outId };
    default:
      return { ...event, stream };
  }
}

function attemptNotice(
  event: Extract<StreamEvent, { type: 'attempt' }>,
  stream: string,
  first: boolean,
): string {
  const previous = event.previous;
  const earlier =
    previous === undefined
      ? ''
      : `attempt ${previous.attempt} ${previous.state}${previous.reason === undefined ? '' : `: ${previous.reason}`}`;
  if (first)
    return `stream ${stream}: attempt ${event.attempt} is current${earlier === '' ? '' : ` (${earlier})`}`;
  return `stream ${stream}: attempt ${event.attempt} replaced it (${earlier}); its text follows from the start`;
}

/**
 * `wharf outputs tail <stream-or-out-id> [--follow] [--json]`: a durable output stream's current
 * attempt's text (a `str_…` id, or the out id of any of its parts), with `--follow` its new chunks
 * as they are stored until it is sealed; an output that is not part of a stream: its body. stderr
 * says which attempt is current and how an earlier one ended, and when a later attempt replaces
 * the one being followed. With `--json`, one JSON line per event on stdout (`attempt`, `chunk`
 * with its `seq` and `text`, `abandoned`, `sealed` with the whole output's `outId`; `output` for
 * a plain output). Nothing stored under the id: exit 3.
 *
 * @example
 * ```ts
 * await outputsTail('str_Vq1…', { dataDir: '.wharf', follow: true, json: false }, io);
 * ```
 */
export async function outputsTail(
  id: string,
  options: OutputsTailOptions,
  io: CliIo,
  write: (chunk: Uint8Array) => void = (chunk) => process.stdout.write(chunk),
): Promise<void> {
  if (!isStreamId(id) && !isOutId(id))
    throw new CliError('USAGE', `${id} is neither a stream id (str_…) nor an out id (out_…)`);
  const data = await openData(options.dataDir);
  try {
    let target: StreamTarget = { stream: id };
    let stream = id;
    if (isOutId(id)) {
      const record = await data.store.stat({ outId: id });
      const label = record.labels[streamLabel];
      if (label === undefined) {
        const { body } = await data.store.get({ outId: id });
        if (options.json)
          io.out(JSON.stringify({ type: 'output', outId: id, text: Buffer.from(body).toString('utf8') }));
        else {
          write(body);
          if (io.isTTY && body.length > 0 && body[body.length - 1] !== 0x0a) write(new Uint8Array([0x0a]));
        }
        return;
      }
      target = { stream: label };
      stream = label;
    }
    let decoder = new TextDecoder();
    let first = true;
    let last: number | undefined;
    let sealed = false;
    const newline = (): void => {
      if (!options.json && last !== undefined && last !== 0x0a) write(new Uint8Array([0x0a]));
      last = undefined;
    };
    for await (const event of tailStream(data.store, target, {
      follow: options.follow,
      ...(options.intervalMs === undefined ? {} : { intervalMs: options.intervalMs }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    })) {
      if (event.type === 'attempt') decoder = new TextDecoder();
      if (options.json) {
        io.out(JSON.stringify(jsonLine(event, stream, decoder)));
        if (event.type === 'sealed') sealed = true;
        continue;
      }
      switch (event.type) {
        case 'attempt':
          // The text printed so far was another attempt's: end its line before saying so.
          if (!first) newline();
          io.err(attemptNotice(event, stream, first));
          first = false;
          break;
        case 'chunk':
          if (event.bytes.length > 0) last = event.bytes[event.bytes.length - 1];
          write(event.bytes);
          break;
        case 'abandoned':
          newline();
          io.err(
            `stream ${stream}: attempt ${event.attempt} was abandoned${event.reason === undefined ? '' : `: ${event.reason}`}`,
          );
          break;
        case 'sealed':
          sealed = true;
          break;
      }
    }
    if (io.isTTY) newline();
    if (!sealed && !options.json && options.signal?.aborted !== true)
      io.err(
        `stream ${stream}: the current attempt is not sealed yet${options.follow ? '' : ' (--follow follows it)'}`,
      );
  } catch (error) {
    throw outputReadCliError(error) ?? error;
  } finally {
    await data.close();
  }
}
