import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { captureProcess } from '@wharf/stdio-limits';
import { formatTable } from '../harness.js';
import { MiB, reportCommand } from './shared.js';

function closed(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', () => resolve());
  });
}

/** `sh -c '<producer> | cat > /dev/null'`: the producer, a pipe(2) and `cat`, all in the bench's session. */
function catOverShellPipe(args: string[]): Promise<void> {
  return closed(spawn('sh', [args[0] ?? '-c', `${args[1]} | cat > /dev/null`], { stdio: 'ignore' }));
}

/**
 * The producer started as `captureProcess` starts it (stdout through the socket pair Node's
 * `spawn` creates, in its own session when `ownSession`), read by `cat` in the bench's session
 * instead of by Node: the same transport and the same scheduling as a capture, minus the capture.
 */
async function catOverSpawnSocket(args: string[], ownSession: boolean): Promise<void> {
  const producer = spawn('sh', args, { stdio: ['ignore', 'pipe', 'ignore'], detached: ownSession });
  const reader = spawn('cat', [], { stdio: [producer.stdout ?? 'ignore', 'ignore', 'ignore'] });
  // `cat` holds its own copy of the socket; the bench's copy would only compete for the bytes.
  producer.stdout?.destroy();
  await Promise.all([closed(producer), closed(reader)]);
}

/** A bare Node reader of the child's stdout (own session, like the capture) that keeps nothing. */
function bareNodeRead(args: string[]): Promise<void> {
  const child = spawn('sh', args, { stdio: ['ignore', 'pipe', 'ignore'], detached: true });
  child.stdout?.on('data', () => undefined);
  return closed(child);
}

async function seconds(work: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await work();
  return (performance.now() - started) / 1000;
}

/**
 * One process printing `size` bytes: captured by Wharf vs `cat` reading the same bytes over the
 * same transport in the same scheduling layout. Node gives a child's stdout an AF_UNIX socket
 * pair, not a pipe, and the default capture starts the child in its own session (`setsid`, so a
 * kill reaches its whole process tree), which Linux's autogroup schedules as a group of its own;
 * each row's `cat` gets the same. The shell-pipe `cat` the rows used to compare with is printed
 * beside them. The variants run interleaved, round after round, and each keeps its best round,
 * so a burst of load from elsewhere on the machine does not land on one variant only.
 */
export async function runThroughput(size: number, rounds = 3): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wharf-bench-stdio-'));
  const args = reportCommand(size);
  const best = {
    shellCat: Number.POSITIVE_INFINITY,
    socketCat: Number.POSITIVE_INFINITY,
    socketCatSameSession: Number.POSITIVE_INFINITY,
    bare: Number.POSITIVE_INFINITY,
    plain: Number.POSITIVE_INFINITY,
    sameSession: Number.POSITIVE_INFINITY,
    gzip: Number.POSITIVE_INFINITY,
  };
  try {
    for (let round = 0; round < rounds; round++) {
      best.shellCat = Math.min(best.shellCat, await seconds(() => catOverShellPipe(args)));
      best.socketCat = Math.min(best.socketCat, await seconds(() => catOverSpawnSocket(args, true)));
      best.plain = Math.min(
        best.plain,
        await seconds(async () => {
          const result = await captureProcess('sh', { args });
          if (result.stdout.totalBytes !== size)
            throw new Error(`captured ${result.stdout.totalBytes} of ${size} bytes`);
        }),
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
      best.socketCatSameSession = Math.min(
        best.socketCatSameSession,
        await seconds(() => catOverSpawnSocket(args, false)),
      );
      best.sameSession = Math.min(
        best.sameSession,
        await seconds(() => captureProcess('sh', { args, processGroup: false })),
      );
      best.bare = Math.min(best.bare, await seconds(() => bareNodeRead(args)));
    }
    const mebibytes = size / MiB;
    const rate = (time: number) => mebibytes / time;
    const table = formatTable(
      `capture throughput, one process printing ${mebibytes} MiB (MiB/s; baseline: cat reading the ` +
        'same spawn socket, child in the same session layout)',
      [
        {
          name: 'captureProcess, default (child in own session)',
          ours: rate(best.plain),
          baseline: rate(best.socketCat),
          target: 0.5,
        },
        {
          name: 'captureProcess, processGroup: false',
          ours: rate(best.sameSession),
          baseline: rate(best.socketCatSameSession),
          target: 0.5,
        },
        {
          name: 'captureProcess, gzip spill (own session)',
          ours: rate(best.gzip),
          baseline: rate(best.socketCat),
          target: 0.3,
        },
      ],
    );
    const shell = rate(best.shellCat);
    const of = (time: number, reference: number) => (rate(time) / reference).toFixed(2);
    const lines = [
      `cat over the same socket, child in own session: ${rate(best.socketCat).toFixed(1)} MiB/s; ` +
        `in the bench's session: ${rate(best.socketCatSameSession).toFixed(1)} MiB/s`,
      `cat over a shell pipe (pipe(2), one session): ${shell.toFixed(1)} MiB/s; against it the default ` +
        `capture runs at ${of(best.plain, shell)}, processGroup: false at ${of(best.sameSession, shell)}, ` +
        `gzip spill at ${of(best.gzip, shell)}`,
      `a bare Node reader that keeps nothing (own session): ${rate(best.bare).toFixed(1)} MiB/s; the ` +
        `default capture runs at ${(best.bare / best.plain).toFixed(2)} of it`,
    ];
    return `${table}\n${lines.join('\n')}`;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
