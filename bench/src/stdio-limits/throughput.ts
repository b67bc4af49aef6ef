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

function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[middle] ?? Number.NaN)
    : ((sorted[middle - 1] ?? Number.NaN) + (sorted[middle] ?? Number.NaN)) / 2;
}

/**
 * One process printing `size` bytes: captured by Wharf vs `cat` reading the same bytes over the
 * same transport in the same scheduling layout. Node gives a child's stdout an AF_UNIX socket
 * pair, not a pipe, and the default capture starts the child in its own session (`setsid`, so a
 * kill reaches its whole process tree), which Linux's autogroup schedules as a group of its own;
 * each row's `cat` gets the same. The shell-pipe `cat` the rows used to compare with is printed
 * beside them. The variants run interleaved, round after round (`rounds`, at least 5), and
 * each variant's figure is the median of its rounds, so a burst of load from elsewhere on the
 * machine neither lands on one variant only nor decides the figure.
 */
export async function runThroughput(size: number, rounds = 5): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'wharf-bench-stdio-'));
  const args = reportCommand(size);
  const times = {
    shellCat: [] as number[],
    socketCat: [] as number[],
    socketCatSameSession: [] as number[],
    bare: [] as number[],
    plain: [] as number[],
    sameSession: [] as number[],
    gzip: [] as number[],
  };
  const expectAll = (captured: number, what: string) => {
    if (captured !== size) throw new Error(`${what} ${captured} of ${size} bytes`);
  };
  try {
    for (let round = 0; round < rounds; round++) {
      times.shellCat.push(await seconds(() => catOverShellPipe(args)));
      times.socketCat.push(await seconds(() => catOverSpawnSocket(args, true)));
      times.plain.push(
        await seconds(async () => {
          expectAll((await captureProcess('sh', { args })).stdout.totalBytes, 'captured');
        }),
      );
      times.gzip.push(
        await seconds(async () => {
          const result = await captureProcess('sh', {
            args,
            spillName: 'throughput',
            limits: { external_storage_dir: dir, compress_external: true, max_external_bytes: size },
          });
          expectAll(result.stdout.spill?.bytes ?? 0, 'spilled');
        }),
      );
      times.socketCatSameSession.push(await seconds(() => catOverSpawnSocket(args, false)));
      times.sameSession.push(
        await seconds(async () => {
          expectAll(
            (await captureProcess('sh', { args, processGroup: false })).stdout.totalBytes,
            'captured',
          );
        }),
      );
      times.bare.push(await seconds(() => bareNodeRead(args)));
    }
    const best = {
      shellCat: median(times.shellCat),
      socketCat: median(times.socketCat),
      socketCatSameSession: median(times.socketCatSameSession),
      bare: median(times.bare),
      plain: median(times.plain),
      sameSession: median(times.sameSession),
      gzip: median(times.gzip),
    };
    const mebibytes = size / MiB;
    const rate = (time: number) => mebibytes / time;
    const table = formatTable(
      `capture throughput, one process printing ${mebibytes} MiB (MiB/s, median of ${rounds} alternating ` +
        'rounds; baseline: cat reading the same spawn socket, child in the same session layout)',
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
    const perRound = (name: string, list: number[]) =>
      `${name} ${list.map((time) => rate(time).toFixed(0)).join(' ')}`;
    lines.push(
      `rounds (MiB/s): ${perRound('cat', times.socketCat)}; ${perRound('default', times.plain)}; ` +
        `${perRound('gzip', times.gzip)}; ${perRound('cat same session', times.socketCatSameSession)}; ` +
        `${perRound('processGroup: false', times.sameSession)}`,
    );
    return `${table}\n${lines.join('\n')}`;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
