import { createHash, hash as oneShotHash } from 'node:crypto';
import { type FileHandle, open } from 'node:fs/promises';
import { openAllowedFile } from './allowed-file.js';
import { OutputTooLargeError } from './errors.js';
import { inlineBytes } from './inline-content.js';
import type { ContentRef } from './types.js';

/**
 * Where spooled bodies are written: a fresh temp path per body, released (deleted if still
 * there) when the body has been stored or given up. `BlobDirectory` is one.
 */
export interface TempArea {
  claimTemp(): string;
  releaseTemp(path: string): void;
}

/** A body ready to commit: small ones in memory, large ones in an fsynced temp file. */
export type SpooledBody =
  | { readonly kind: 'inline'; readonly bytes: Uint8Array; readonly sha256: string }
  | { readonly kind: 'temp'; readonly tempPath: string; readonly sizeBytes: number; readonly sha256: string };

/** Options of {@link spoolBody}. */
export interface SpoolOptions {
  readonly temps: TempArea;
  readonly inlineThresholdBytes: number;
  readonly maxBodyBytes: number;
  readonly allowedRoots: readonly string[];
}

/**
 * Reads content once, hashing as it goes. Up to the inline threshold it stays in memory;
 * past it, bytes stream to a temp file (created 0600, written, fsynced, closed) so a body of
 * any size costs only one chunk of memory. On failure the temp file is removed.
 *
 * @example
 * ```ts
 * const spooled = await spoolBody({ kind: 'text', text: 'hi' }, options);
 * ```
 */
export async function spoolBody(content: ContentRef, options: SpoolOptions): Promise<SpooledBody> {
  const inline = inlineBytes(content);
  if (inline) {
    if (inline.byteLength > options.maxBodyBytes) throw new OutputTooLargeError(options.maxBodyBytes);
    if (inline.byteLength <= options.inlineThresholdBytes) {
      // One-shot: no Hash object to build for a body already in memory.
      return { kind: 'inline', bytes: inline, sha256: oneShotHash('sha256', inline, 'hex') };
    }
    return spoolChunks([inline], options);
  }
  if (content.kind === 'file') {
    const file = await openAllowedFile(content.path, options.allowedRoots);
    try {
      if (file.sizeBytes > options.maxBodyBytes) throw new OutputTooLargeError(options.maxBodyBytes);
      return await spoolChunks(readReusing(file.handle), options);
    } finally {
      await file.handle.close();
    }
  }
  if (content.kind === 'stream') return spoolChunks(content.stream, options);
  throw new Error('unreachable content kind');
}

/**
 * Reads a file through one reused 256 KiB buffer: each chunk is consumed (hashed, written)
 * before the next read, so copying a body of any size allocates no garbage per chunk.
 */
async function* readReusing(handle: FileHandle): AsyncGenerator<Uint8Array> {
  const buffer = Buffer.allocUnsafe(256 * 1024);
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
    if (bytesRead === 0) return;
    yield buffer.subarray(0, bytesRead);
  }
}

async function spoolChunks(
  source: Iterable<Uint8Array> | AsyncIterable<Uint8Array | string>,
  options: SpoolOptions,
): Promise<SpooledBody> {
  const hash = createHash('sha256');
  const pending: Buffer[] = [];
  let total = 0;
  let tempPath: string | undefined;
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    for await (const chunk of source) {
      const buffer =
        typeof chunk === 'string'
          ? Buffer.from(chunk, 'utf8')
          : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      total += buffer.byteLength;
      if (total > options.maxBodyBytes) throw new OutputTooLargeError(options.maxBodyBytes);
      hash.update(buffer);
      if (handle) {
        await handle.write(buffer);
        continue;
      }
      pending.push(Buffer.from(buffer));
      if (total > options.inlineThresholdBytes) {
        tempPath = options.temps.claimTemp();
        // Readable by this user only: the body may be anyone's secret.
        handle = await open(tempPath, 'wx', 0o600);
        await handle.writev(pending);
        pending.length = 0;
      }
    }
    const sha256 = hash.digest('hex');
    if (!handle || !tempPath) return { kind: 'inline', bytes: Buffer.concat(pending, total), sha256 };
    await handle.sync();
    await handle.close();
    handle = undefined;
    return { kind: 'temp', tempPath, sizeBytes: total, sha256 };
  } catch (error) {
    await handle?.close().catch(() => undefined);
    if (tempPath) options.temps.releaseTemp(tempPath);
    throw error;
  }
}
