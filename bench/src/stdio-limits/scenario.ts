import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { captureProcess } from '@wharf/stdio-limits';
import { formatTable } from '../harness.js';
import { MiB, reportCommand, reportSha256, sampleRss } from './shared.js';

const readBuffer = Buffer.allocUnsafe(1024 * 1024);

/** Hashes a file through one reused buffer, so verifying adds no garbage to the RSS figure. */
async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  const file = await open(path);
  try {
    for (;;) {
      const { bytesRead } = await file.read(readBuffer, 0, readBuffer.length, null);
      if (bytesRead === 0) break;
      hash.update(readBuffer.subarray(0, bytesRead));
    }
  } finally {
    await file.close();
  }
  return hash.digest('hex');
}

/** The unbounded capture the note warns about: every chunk kept, every run's output retained. */
function captureEverything(args: string[]): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.stderr.resume();
    child.once('error', reject);
    child.once('close', () => resolve(Buffer.concat(chunks)));
  });
}

/**
 * The note's scenario: a task printing `size` bytes looped `runs` times, captured under the
 * default limits with spill on. Every spill file is re-read and hash-checked, then deleted.
 */
export async function runScenario(runs: number, size: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wharf-bench-stdio-'));
  const expected = reportSha256(size);
  const args = reportCommand(size);
  let verified = 0;
  let retainedBytes = 0;
  try {
    // One uncounted run first, so lazily loaded code and first-use allocations are not counted as growth.
    await captureProcess('sh', { args, spillName: 'warm-up', limits: { external_storage_dir: dir } });
    const before = process.memoryUsage.rss();
    const sampler = sampleRss();
    let oursSeconds = 0;
    for (let run = 0; run < runs; run++) {
      const started = performance.now();
      const result = await captureProcess('sh', {
        args,
        spillName: `run-${run}`,
        limits: { external_storage_dir: dir },
      });
      oursSeconds += (performance.now() - started) / 1000;
      const spill = result.stdout.spill;
      retainedBytes += result.stdout.retainedBytes + result.stderr.retainedBytes;
      if (
        spill &&
        spill.bytes === size &&
        spill.sha256 === expected &&
        (await fileSha256(spill.path)) === expected
      ) {
        verified++;
      }
      if (spill) await rm(spill.path);
    }
    const oursGrowth = (sampler.stop() - before) / MiB;

    const naiveRuns = Math.max(1, Math.round(runs / 10));
    const naiveBefore = process.memoryUsage.rss();
    const naiveSampler = sampleRss();
    const naiveStarted = performance.now();
    const kept: Buffer[] = [];
    for (let run = 0; run < naiveRuns; run++) kept.push(await captureEverything(args));
    const naiveSeconds = (performance.now() - naiveStarted) / 1000;
    const naiveGrowth = (naiveSampler.stop() - naiveBefore) / MiB;
    kept.length = 0;

    const table = formatTable(
      `scenario: ${runs} runs x ${(size / MiB).toFixed(0)} MiB, default limits, spill on`,
      [
        {
          name: 'runs/s vs keep-everything capture',
          ours: runs / oursSeconds,
          baseline: naiveRuns / naiveSeconds,
          target: 0.5,
        },
        { name: `peak RSS growth over ${runs} runs`, measured: oursGrowth, budget: 64, unit: 'MiB' },
        {
          name: 'spill files byte-exact (sha256 re-read from disk), files vs runs',
          ours: verified,
          baseline: runs,
          target: 1,
        },
      ],
    );
    return [
      table,
      `keep-everything: ${naiveGrowth.toFixed(1)} MiB peak RSS growth after only ${naiveRuns} runs; ` +
        `retained in memory: ${(retainedBytes / MiB).toFixed(1)} MiB in total of ${((runs * size) / MiB).toFixed(0)} MiB printed`,
    ].join('\n');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
