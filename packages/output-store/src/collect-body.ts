import { createHash } from 'node:crypto';
import { openAllowedFile } from './allowed-file.js';
import { OutputTooLargeError } from './errors.js';
import { inlineBytes } from './inline-content.js';
import type { ContentRef } from './types.js';

/** Options of {@link collectBody}. */
export interface CollectBodyOptions {
  readonly allowedRoots: readonly string[];
  readonly maxBodyBytes: number;
}

/**
 * Reads any {@link ContentRef} into memory with its SHA-256, enforcing `maxBodyBytes` while
 * reading (a stream over the limit is abandoned early).
 *
 * @example
 * ```ts
 * const { bytes, sha256 } = await collectBody({ kind: 'text', text: 'hi' }, { allowedRoots: [], maxBodyBytes: 1024 });
 * ```
 */
export async function collectBody(
  content: ContentRef,
  options: CollectBodyOptions,
): Promise<{ bytes: Uint8Array; sha256: string }> {
  const inline = inlineBytes(content);
  if (inline) {
    if (inline.byteLength > options.maxBodyBytes) throw new OutputTooLargeError(options.maxBodyBytes);
    return { bytes: Uint8Array.from(inline), sha256: createHash('sha256').update(inline).digest('hex') };
  }
  if (content.kind === 'file') {
    const file = await openAllowedFile(content.path, options.allowedRoots);
    try {
      if (file.sizeBytes > options.maxBodyBytes) throw new OutputTooLargeError(options.maxBodyBytes);
      return await collectChunks(file.handle.createReadStream({ autoClose: false }), options.maxBodyBytes);
    } finally {
      await file.handle.close();
    }
  }
  if (content.kind === 'stream') return collectChunks(content.stream, options.maxBodyBytes);
  throw new Error('unreachable content kind');
}

async function collectChunks(
  source: AsyncIterable<Uint8Array | string>,
  maxBodyBytes: number,
): Promise<{ bytes: Uint8Array; sha256: string }> {
  const hash = createHash('sha256');
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of source) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : Buffer.from(chunk);
    total += buffer.byteLength;
    if (total > maxBodyBytes) throw new OutputTooLargeError(maxBodyBytes);
    hash.update(buffer);
    chunks.push(buffer);
  }
  return { bytes: new Uint8Array(Buffer.concat(chunks, total)), sha256: hash.digest('hex') };
}
