import { type ChildProcess, spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { Readable, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { probeStreamReader, type StreamReaderBinary } from './stream-reader-build.js';

/** What the stream reader saw of the part of a stream handed over to it. */
export interface ReaderSegment {
  totalBytes: number;
  newlines: number;
  /** The segment's last byte, or -1 when it is empty. */
  lastByte: number;
  /** The last bytes of the segment (at most the tail size it was given). */
  tail: Buffer;
  /**
   * Bytes it appended to the spill file, bytes it did not store, why writing stopped, and the
   * sha256 of the whole spill (the part written before the handover, read back, and its own).
   */
  spill?: ReaderSpillResult;
}

/** What the stream reader did with the spill it was handed (see {@link ReaderSegment.spill}). */
export interface ReaderSpillResult {
  stored: number;
  dropped: number;
  sha256?: string;
  error?: string;
}

/** The spill as handed to the stream reader. */
export interface ReaderSpillTerms {
  /** The spill file, open for reading and writing. */
  fd: number;
  compress: boolean;
  /** gzip level, 1 to 9. */
  level: number;
  /** Stream bytes it may still store. */
  room: number;
  /**
   * Called once the reader runs: finishes what was written to the file so far and resolves with
   * the stream bytes stored and the file's size, or undefined when the spill cannot go on.
   */
  release: () => Promise<{ streamBytes: number; fileBytes: number } | undefined>;
}

/** The binary found for the `$WHARF_STREAM_READER` value it was looked up under. */
let located: { setting: string | undefined; binary: StreamReaderBinary | undefined } | undefined;

/**
 * The stream reader binary (`native/stream-reader.c`, compiled by the package build where a C
 * compiler is found, with zlib where its header is) when one runs here:
 * `$WHARF_STREAM_READER` when it names one (`off` disables the reader), else the one beside the
 * compiled module. Checked once per value of `$WHARF_STREAM_READER` (a process that changes it
 * gets the binary it names next time).
 *
 * @example
 * ```ts
 * if (streamReader()?.gzip) console.log('fast streams are read and gzipped outside the event loop');
 * ```
 */
export function streamReader(): StreamReaderBinary | undefined {
  const setting = process.env.WHARF_STREAM_READER;
  if (located === undefined || located.setting !== setting)
    located = { setting, binary: locateStreamReader(setting) };
  return located.binary;
}

function locateStreamReader(setting: string | undefined): StreamReaderBinary | undefined {
  if (process.platform === 'win32') return undefined;
  if (setting === 'off') return undefined;
  if (setting) return probeStreamReader(setting);
  // Beside the compiled module in dist/, or (tests running the sources) in ../dist/.
  for (const relative of ['./native/wharf-stream-reader', '../dist/native/wharf-stream-reader']) {
    const found = probeStreamReader(fileURLToPath(new URL(relative, import.meta.url)));
    if (found) return found;
  }
  return undefined;
}

/** The socket handle of a child's stdio stream, as far as a handover needs it. */
interface StreamHandle {
  reading?: boolean;
  readStop?: () => number;
}

/**
 * Whether Node can stop reading `readable` (a child process's stdout or stderr socket) right now
 * with nothing left in its buffer, so that every later byte goes to whoever reads it next.
 */
export function canStopReading(readable: Readable): boolean {
  const handle = (readable as Readable & { _handle?: StreamHandle })._handle;
  return typeof handle?.readStop === 'function' && readable.readableLength === 0 && !readable.readableEnded;
}

/** Stops Node from reading `readable` (see {@link canStopReading}). */
export function stopReading(readable: Readable): void {
  const handle = (readable as Readable & { _handle?: StreamHandle })._handle;
  readable.pause();
  handle?.readStop?.();
  if (handle) handle.reading = false;
}

/** A running stream reader. */
export interface ReaderRun {
  /** Resolves with the segment once the reader exits (end of stream, or after {@link ReaderRun.stop}). */
  done: Promise<ReaderSegment>;
  /** Asks the reader to stop before the end of the stream; it still reports what it read. */
  stop(): void;
  /** True once the reader exited at the end of the stream, not stopped. */
  readonly ended: boolean;
}

/**
 * Hands the rest of `readable` (a child process's stdout or stderr socket that Node stopped
 * reading, see {@link stopReading}) to the stream reader: the reader reads it with
 * blocking reads until the end, keeping `tailBytes`, and, with `spill`, hashes what was
 * written to the spill file so far and appends the rest (gzip too), up to `spill.room` bytes;
 * `onBytes` hears the bytes it has read so far. Call it right after {@link stopReading}, in the
 * same tick: Node's stream would read on at the next one.
 *
 * @example
 * ```ts
 * if (streamReader() && canStopReading(child.stdout)) {
 *   stopReading(child.stdout);
 *   const run = handOver(child.stdout, { tailBytes: 4096, onBytes: (bytes) => console.log(bytes) });
 *   const segment = await run.done;
 * }
 * ```
 */
export function handOver(
  readable: Readable,
  options: {
    tailBytes: number;
    spill?: ReaderSpillTerms | undefined;
    onBytes?: (bytes: number) => void;
  },
): ReaderRun {
  const binary = streamReader();
  if (binary === undefined) throw new Error('no stream reader on this machine');
  const spill = options.spill;
  if (spill?.compress && !binary.gzip) throw new Error('this stream reader was built without zlib');
  const args = [String(options.tailBytes)];
  if (spill)
    args.push(
      ...(spill.compress ? ['gzip', String(spill.room), String(spill.level)] : ['plain', String(spill.room)]),
    );
  const reader: ChildProcess = spawn(binary.path, args, {
    stdio: [readable, 'pipe', 'ignore', spill?.fd ?? 'ignore', spill ? 'pipe' : 'ignore'],
  });
  // The reader holds its own copy of the socket.
  readable.destroy();
  if (spill) {
    // Node's part of the spill must be on disk before the reader reads it back and appends.
    const go = reader.stdio[4] as Writable | null;
    go?.on('error', () => undefined);
    void spill
      .release()
      .catch(() => undefined)
      .then((written) => go?.end(written ? `${written.streamBytes} ${written.fileBytes}\n` : '-\n'));
  }
  let ended = false;
  let stopped = false;
  /** Set once the reader has its SIGTERM handler: stopping it before would kill it, record and all. */
  let ready = false;
  const done = new Promise<ReaderSegment>((resolve, reject) => {
    const chunks: Buffer[] = [];
    let progress = true;
    let pending = '';
    reader.stdout?.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      if (!progress) return;
      // "P <bytes>" lines come before the final record.
      pending += chunk.toString('latin1');
      for (let newline = pending.indexOf('\n'); newline !== -1; newline = pending.indexOf('\n')) {
        const line = pending.slice(0, newline);
        pending = pending.slice(newline + 1);
        if (line === 'R') {
          ready = true;
          if (stopped) reader.kill('SIGTERM');
        } else if (line.startsWith('P ')) {
          options.onBytes?.(Number(line.slice(2)));
        } else {
          progress = false;
          return;
        }
      }
    });
    reader.once('error', reject);
    reader.once('close', (code, signal) => {
      try {
        const segment = parseRecord(Buffer.concat(chunks), spill !== undefined);
        ended = !stopped;
        resolve(segment);
      } catch (error) {
        reject(new Error(`the stream reader failed (exit ${code ?? signal})`, { cause: error }));
      }
    });
  });
  return {
    done,
    stop() {
      stopped = true;
      if (ready) reader.kill('SIGTERM');
    },
    get ended() {
      return ended;
    },
  };
}

/**
 * The reader's final record:
 * "E total newlines last stored dropped error sha256 tailLength\n" + tail.
 */
function parseRecord(output: Buffer, spilled: boolean): ReaderSegment {
  let at = 0;
  while (output[at] === 0x50 || output[at] === 0x52) at = output.indexOf(0x0a, at) + 1; // "R", "P …" lines
  const end = output.indexOf(0x0a, at);
  const fields = output.subarray(at, end).toString('latin1').split(' ');
  if (fields[0] !== 'E' || fields.length !== 9) throw new Error('no final record');
  const [total, newlines, last, stored, dropped, errno] = fields.slice(1, 7).map(Number) as number[];
  const sha256 = fields[7];
  const tailLength = Number(fields[8]);
  const tail = output.subarray(end + 1, end + 1 + tailLength);
  if (tail.length !== tailLength) throw new Error('short tail');
  const error = spillError(errno ?? 0);
  return {
    totalBytes: total ?? 0,
    newlines: newlines ?? 0,
    lastByte: last ?? -1,
    tail: Buffer.from(tail),
    ...(spilled
      ? {
          spill: {
            stored: stored ?? 0,
            dropped: dropped ?? 0,
            ...(sha256 === undefined || sha256 === '-' ? {} : { sha256 }),
            ...(error === undefined ? {} : { error }),
          },
        }
      : {}),
  };
}

/** The reader's spill error code as a message: an errno value, or -1 (the earlier part did not read back). */
function spillError(code: number): string | undefined {
  if (code === 0) return undefined;
  if (code === -1)
    return 'the part of the spill file written before the handover did not read back as written';
  const name = Object.entries(constants.errno).find(([, value]) => value === code)?.[0] ?? `errno ${code}`;
  return `${name}: writing the spill file failed`;
}
