import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { captureProcess } from './capture-process.js';
import { streamReader } from './stream-reader.js';
import { compileStreamReaderSync } from './stream-reader-build.js';

// A stream reader built without zlib, as on a machine without zlib's header: gzip spills stay
// Node's, plain spills and the rest still go to the reader. `streamReader()` looks the binary up
// again when `WHARF_STREAM_READER` changes; the file sets it back when it ends.
const dir = await mkdtemp(join(tmpdir(), 'wharf-stream-reader-fallback-'));
const built =
  process.platform === 'win32'
    ? { error: 'no reader on Windows' }
    : compileStreamReaderSync(join(dir, 'reader'), { zlib: false });
const before = process.env.WHARF_STREAM_READER;
if (!('error' in built)) process.env.WHARF_STREAM_READER = built.path;
afterAll(async () => {
  if (before === undefined) delete process.env.WHARF_STREAM_READER;
  else process.env.WHARF_STREAM_READER = before;
  await rm(dir, { recursive: true, force: true });
});

const count = 5_000_000; // about 38.9 MB: well past the handover
const expected = Buffer.from(Array.from({ length: count }, (_, index) => `${index + 1}\n`).join(''));
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe.skipIf('error' in built)('captureProcess with a stream reader built without zlib', () => {
  it('runs that reader, which says it cannot gzip', () => {
    expect(streamReader()).toEqual({ path: join(dir, 'reader'), gzip: false });
  });

  it('looks the reader up again when WHARF_STREAM_READER changes', () => {
    const path = process.env.WHARF_STREAM_READER;
    try {
      process.env.WHARF_STREAM_READER = 'off';
      expect(streamReader()).toBeUndefined();
    } finally {
      process.env.WHARF_STREAM_READER = path;
    }
    expect(streamReader()).toEqual({ path: join(dir, 'reader'), gzip: false });
  });

  it('spills gzip (Node) and plain (the reader) byte-exact, with their sha256', async () => {
    for (const compress of [true, false]) {
      const result = await captureProcess('seq', {
        args: ['1', String(count)],
        spillName: `fallback-${compress}`,
        limits: { max_stdout_bytes: 1000, external_storage_dir: dir, compress_external: compress },
      });
      const file = await readFile(result.stdout.spill?.path ?? '');
      expect((compress ? gunzipSync(file) : file).equals(expected)).toBe(true);
      expect(result.stdout.spill).toMatchObject({
        bytes: expected.length,
        sha256: sha256(expected),
        capped: false,
      });
      expect(result.stdout.totalLines).toBe(count);
    }
  });
});
