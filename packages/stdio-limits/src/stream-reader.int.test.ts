import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captureProcess } from './capture-process.js';
import { HANDOVER_BYTES } from './capture-stream.js';
import { streamReader } from './stream-reader.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'wharf-stream-reader-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The exact bytes `seq 1 n` prints. */
const seqBytes = (count: number) =>
  Buffer.from(Array.from({ length: count }, (_, index) => `${index + 1}\n`).join(''));
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const count = 5_000_000; // about 38.9 MB: well past the handover
const expected = seqBytes(count);

const reader = streamReader();

describe.skipIf(reader === undefined)('captureProcess with the stream reader', () => {
  it('captures a fast stream exactly as Node alone does: counts, head, tail, markers', async () => {
    expect(expected.length).toBeGreaterThan(2 * HANDOVER_BYTES);
    for (const strategy of ['head', 'tail', 'both'] as const) {
      const run = (streamReader: boolean) =>
        captureProcess('seq', {
          args: ['1', String(count)],
          streamReader,
          limits: { max_stdout_bytes: 3000, truncation_strategy: strategy },
        });
      const [fast, slow] = await Promise.all([run(true), run(false)]);
      expect(fast.stdout).toEqual(slow.stdout);
      expect(fast.stdout.totalBytes).toBe(expected.length);
      expect(fast.stdout.totalLines).toBe(count);
      if (strategy !== 'head') expect(fast.stdout.tail.endsWith(`${count}\n`)).toBe(true);
    }
  });

  it('spills the whole stream byte-exact, with its sha256, and stops at the hard cap', async () => {
    const whole = await captureProcess('seq', {
      args: ['1', String(count)],
      spillName: 'whole',
      limits: { max_stdout_bytes: 1000, external_storage_dir: dir, external_storage_threshold: 0 },
    });
    const file = await readFile(whole.stdout.spill?.path ?? '');
    expect(file.equals(expected)).toBe(true);
    expect(whole.stdout.spill).toMatchObject({
      bytes: expected.length,
      sha256: sha256(expected),
      capped: false,
    });

    const cap = HANDOVER_BYTES + 123_457;
    const capped = await captureProcess('seq', {
      args: ['1', String(count)],
      spillName: 'capped',
      limits: { max_stdout_bytes: 1000, external_storage_dir: dir, max_external_bytes: cap },
    });
    const stored = await readFile(capped.stdout.spill?.path ?? '');
    expect(stored.equals(expected.subarray(0, cap))).toBe(true);
    expect(capped.stdout.spill).toMatchObject({
      bytes: cap,
      capped: true,
      droppedBytes: expected.length - cap,
      sha256: sha256(expected.subarray(0, cap)),
    });
    expect(capped.stdout.totalBytes).toBe(expected.length);
  });

  it.skipIf(!reader?.gzip)(
    'gzips the spill past the handover: it gunzips to the stream, with its sha256',
    async () => {
      const whole = await captureProcess('seq', {
        args: ['1', String(count)],
        spillName: 'whole-gzip',
        limits: {
          max_stdout_bytes: 1000,
          external_storage_dir: dir,
          external_storage_threshold: 0,
          compress_external: true,
        },
      });
      const file = await readFile(whole.stdout.spill?.path ?? '');
      expect(gunzipSync(file).equals(expected)).toBe(true);
      expect(whole.stdout.spill).toMatchObject({
        compressed: true,
        bytes: expected.length,
        fileBytes: file.length,
        sha256: sha256(expected),
        capped: false,
        droppedBytes: 0,
      });

      // The hard cap falls inside a block the reader compresses.
      const cap = HANDOVER_BYTES + 3_000_001;
      const capped = await captureProcess('seq', {
        args: ['1', String(count)],
        spillName: 'capped-gzip',
        limits: {
          max_stdout_bytes: 1000,
          external_storage_dir: dir,
          compress_external: true,
          max_external_bytes: cap,
        },
      });
      const stored = gunzipSync(await readFile(capped.stdout.spill?.path ?? ''));
      expect(stored.equals(expected.subarray(0, cap))).toBe(true);
      expect(capped.stdout.spill).toMatchObject({
        bytes: cap,
        capped: true,
        droppedBytes: expected.length - cap,
        sha256: sha256(expected.subarray(0, cap)),
      });
      expect(capped.stdout.totalBytes).toBe(expected.length);
    },
  );

  it('hashes the same with the portable sha256 as with the CPU extensions', async () => {
    process.env.WHARF_SHA256_PORTABLE = '1';
    try {
      const result = await captureProcess('seq', {
        args: ['1', String(count)],
        spillName: 'portable',
        limits: {
          max_stdout_bytes: 1000,
          external_storage_dir: dir,
          compress_external: reader?.gzip ?? false,
        },
      });
      expect(result.stdout.spill).toMatchObject({ bytes: expected.length, sha256: sha256(expected) });
    } finally {
      delete process.env.WHARF_SHA256_PORTABLE;
    }
  });

  it('counts what a spill full before the handover drops, gzip or not', async () => {
    const cap = 1_000_003;
    for (const compress of [false, true]) {
      const result = await captureProcess('seq', {
        args: ['1', String(count)],
        spillName: `full-${compress}`,
        limits: {
          max_stdout_bytes: 1000,
          external_storage_dir: dir,
          compress_external: compress,
          max_external_bytes: cap,
        },
      });
      const file = await readFile(result.stdout.spill?.path ?? '');
      expect((compress ? gunzipSync(file) : file).equals(expected.subarray(0, cap))).toBe(true);
      expect(result.stdout.spill).toMatchObject({
        bytes: cap,
        capped: true,
        droppedBytes: expected.length - cap,
        sha256: sha256(expected.subarray(0, cap)),
      });
    }
  });

  it('keeps what was printed when a grandchild holds the pipe past the drain timeout', async () => {
    const result = await captureProcess('sh', {
      args: ['-c', `seq 1 ${count}; sleep 30 &`],
      limits: { max_stdout_bytes: 1000, drain_timeout_ms: 500 },
      killGraceMs: 300,
    });
    expect(result).toMatchObject({ exitCode: 0, drainTimedOut: true, killedStrays: true });
    expect(result.stdout.totalBytes).toBe(expected.length);
    expect(result.stdout.totalLines).toBe(count);
    expect(result.stdout.tail.endsWith(`${count}\n`)).toBe(true);
  });

  it('reports progress and kills on overflow past the handover', async () => {
    const progress: number[] = [];
    const result = await captureProcess('yes', {
      limits: { max_stdout_bytes: 3 * HANDOVER_BYTES, kill_on_overflow: true },
      progressIntervalMs: 20,
      onProgress: (update) => progress.push(update.stdoutBytes),
    });
    expect(result.killedBy).toBe('overflow');
    expect(result.stdout.totalBytes).toBeGreaterThan(3 * HANDOVER_BYTES);
    expect(result.stdout.tail.replaceAll('y\n', '')).toBe('');
    expect(progress.at(-1)).toBe(result.stdout.totalBytes);
  });
});
