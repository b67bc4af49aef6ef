import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { constants } from 'node:os';
import type { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';

/** What the stream reader saw of the part of a stream handed over to it. */
export interface ReaderSegment {
  totalBytes: number;
  newlines: number;
  /** The segment's last byte, or -1 when it is empty. */
  lastByte: number;
  /** The last bytes of the segment (at most the tail size it was given). */
  tail: Buffer;
  /** Bytes it appended to the spill file, bytes it did not store, and why writing stopped. */
  spill?: { stored: number; dropped: number; error?: string };
}

let readerPath: string | null | undefined;

/**
 * The compiled stream reader (`native/stream-reader.c`, built with the package where a C
 * compiler is found), when it is there and runs here; checked once per process.
 *
 * @example
 * ```ts
 * if (streamReaderPath()) console.log('fast streams are read outside the event loop');
 * ```
 */
export function streamReaderPath(): string | undefined {
  if (readerPath === undefined) {
    // Beside the compiled module in dist/, or (tests running the sources) in ../dist/.
    const candidates = ['./native/wharf-stream-reader', '../dist/native/wharf-stream-reader'].map(
      (relative) => fileURLToPath(new URL(relative, import.meta.url)),
    );
    readerPath =
      process.platform === 'win32'
        ? null
        : (candidates.find((path) => spawnSync(path, ['--probe'], { stdio: 'ignore' }).status === 0) ?? null);
  }
  return readerPath ?? undefined;
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
 * blocking reads until the end, keeping `tailBytes` and writing to `spill.fd` from
 * `spill.offset` on, up to `spill.room` bytes, and `onBytes` hears the bytes it has read so far.
 * Call it right after {@link stopReading}, in the same tick: Node's stream would read on at
 * the next one.
 *
 * @example
 * ```ts
 * if (streamReaderPath() && canStopReading(child.stdout)) {
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
    spill?: { fd: number; offset: number; room: number } | undefined;
    onBytes?: (bytes: number) => void;
  },
): ReaderRun {
  const path = streamReaderPath();
  if (path === undefined) throw new Error('no stream reader on this machine');
  const spill = options.spill;
  const args = [String(options.tailBytes), spill ? String(spill.room) : '-', String(spill?.offset ?? 0)];
  const reader: ChildProcess = spawn(path, args, {
    stdio: [readable, 'pipe', 'ignore', options.spill?.fd ?? 'ignore'],
  });
  // The reader holds its own copy of the socket.
  readable.destroy();
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
        const segment = parseRecord(Buffer.concat(chunks), options.spill !== undefined);
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

/** The reader's final record: "E total newlines last stored dropped errno tailLength\n" + tail. */
function parseRecord(output: Buffer, spilled: boolean): ReaderSegment {
  let at = 0;
  while (output[at] === 0x50 || output[at] === 0x52) at = output.indexOf(0x0a, at) + 1; // "R", "P …" lines
  const end = output.indexOf(0x0a, at);
  const fields = output.subarray(at, end).toString('latin1').split(' ');
  if (fields[0] !== 'E' || fields.length !== 8) throw new Error('no final record');
  const [, total, newlines, last, stored, dropped, errno, tailLength] = fields.map(Number) as number[];
  const tail = output.subarray(end + 1, end + 1 + (tailLength ?? 0));
  if (tail.length !== tailLength) throw new Error('short tail');
  const errorName =
    errno === 0 || errno === undefined
      ? undefined
      : (Object.entries(constants.errno).find(([, value]) => value === errno)?.[0] ?? `errno ${errno}`);
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
            ...(errorName === undefined ? {} : { error: `${errorName}: writing the spill file failed` }),
          },
        }
      : {}),
  };
}
