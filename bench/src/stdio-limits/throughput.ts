import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { captureProcess } from '@wharf/stdio-limits';
import { formatTable } from '../harness.js';
import { MiB, reportCommand } from './shared.js';

function runShell(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', args, { stdio: 'ignore' });
    child.once('error', reject);
    child.once('close', () => resolve());
  });
}

/** A bare Node reader of the child's stdout that keeps nothing: the ceiling for any Node capture. */
function bareNodeRead(args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('sh', args, { stdio: ['ignore', 'pipe', 'ignore'] });
    child.stdout.on('data', () => undefined);
    child.once('error', reject);
    child.once('close', () => resolve());
  });
}

async function seconds(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

/**
 * One process printing `size` bytes: captured by Wharf vs `cat` of the same bytes to /dev/null.
 * The three variants run interleaved, round after round, and each keeps its best round, so a
 * burst of load from elsewhere on the machine does not land on one variant only. The default runs
 * the child in its own session (so a kill reaches its whole process tree); the `processGroup: false`
 * row shows what that costs on kernels that schedule sessions as separate groups (autogroup).
 */
export async function runThroughput(size: number, rounds = 3): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wharf-bench-stdio-'));
  const args = reportCommand(size);
  const catArgs = [args[0] ?? '-c', `${args[1]} | cat > /dev/null`];
  const best = {
    cat: Number.POSITIVE_INFINITY,
    bare: Number.POSITIVE_INFINITY,
    plain: Number.POSITIVE_INFINITY,
    sameSession: Number.POSITIVE_INFINITY,
    gzip: Number.POSITIVE_INFINITY,
  };
  try {
    for (let round = 0; round < rounds; round++) {
      best.cat = Math.min(best.cat, await seconds(() => runShell(catArgs)));
      best.bare = Math.min(best.bare, await seconds(() => bareNodeRead(args)));
      best.plain = Math.min(
        best.plain,
        await seconds(async () => {
          const result = await captureProcess('sh', { args });
          if (result.stdout.totalBytes !== size)
            throw new Error(`captured ${result.stdout.totalBytes} of ${size} bytes`);
        }),
      );
      best.sameSession = Math.min(
        best.sameSession,
        await seconds(() => captureProcess('sh', { args, processGroup: false })),
      );
      best.gzip = Math.min(
        best.gzip,
        await seconds(async () => {
          const result = await captureProcess('sh', {
            args,
            spillName: 'throughput',
            limits: { external_storage_dir: dir, compress_external: true, max_external_bytes: size },
          });
          if (result.stdout.spill?.bytes !== size)
            throw new Error(`spilled ${result.stdout.spill?.bytes} of ${size} bytes`);
        }),
      );
    }
    const mebibytes = size / MiB;
    const rate = (time: number) => mebibytes / time;
    const table = formatTable(
      `capture throughput, one process printing ${mebibytes} MiB (MiB/s; baseline: cat > /dev/null)`,
      [
        {
          name: 'captureProcess, default limits',
          ours: rate(best.plain),
          baseline: rate(best.cat),
          target: 0.5,
        },
        {
          name: 'captureProcess, processGroup: false',
          ours: rate(best.sameSession),
          baseline: rate(best.cat),
          target: 0.5,
        },
        { name: 'captureProcess, gzip spill', ours: rate(best.gzip), baseline: rate(best.cat), target: 0.3 },
      ],
    );
    const bare = rate(best.bare);
    const reference =
      `reference: a bare Node pipe reader that keeps nothing reaches ${bare.toFixed(1)} MiB/s ` +
      `(${(bare / rate(best.cat)).toFixed(2)} of cat); the default capture runs at ${(best.bare / best.plain).toFixed(2)} of it`;
    return `${table}\n${reference}`;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
