import { mkdir, open, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FsArtifactStore } from '@wharf/evidence';

/** Shape of one benchmark run: workers × calls, every output `artifactBytes` long. */
export interface RunShape {
  runId: string;
  workers: number;
  callsPerWorker: number;
  artifactBytes: number;
}

const HEAD = 'command: ./deploy.sh --target clifford\nstarting...\n';
const tail = (seq: number) => `step ${seq} finished\nexit status ${seq % 7 === 0 ? 1 : 0}\n`;

function denseOutput(bytes: number, seq: number): string {
  const line = `log line of call ${seq}: all systems nominal, nothing to report here.\n`;
  const end = tail(seq);
  const body = HEAD + line.repeat(Math.ceil(bytes / line.length));
  return body.slice(0, Math.max(0, bytes - end.length)) + end;
}

/** A sparse file of `bytes` with real text at both ends; only those pages use disk. */
async function sparseOutput(path: string, bytes: number, seq: number): Promise<void> {
  const handle = await open(path, 'w');
  try {
    await handle.write(HEAD, 0);
    await handle.truncate(bytes);
    const end = Buffer.from(tail(seq));
    await handle.write(end, 0, end.length, bytes - end.length);
  } finally {
    await handle.close();
  }
}

/**
 * Fills `store` with one run: dense text outputs when small, sparse files moved into the
 * store when large (so a 100 MB output costs a few KB of disk). Every 7th call fails.
 */
export async function createRun(store: FsArtifactStore, shape: RunShape, scratch: string): Promise<void> {
  const sparse = shape.artifactBytes >= 1024 * 1024;
  for (let index = 0; index < shape.workers; index++) {
    const workerId = `${shape.runId}-w${index}`;
    await store.putWorker({
      workerId,
      jobId: String(index + 1),
      runId: shape.runId,
      ownerId: 'bench',
      status: 'succeeded',
      startedAt: '2026-01-18T10:00:00.000Z',
    });
    for (let seq = 1; seq <= shape.callsPerWorker; seq++) {
      const call = {
        seq,
        toolName: 'ssh_exec',
        exitCode: seq % 7 === 0 ? 1 : 0,
        durationMs: 100 + seq,
        startedAt: '2026-01-18T10:00:01.000Z',
        endedAt: '2026-01-18T10:00:02.000Z',
      };
      if (sparse) {
        const path = join(scratch, `${workerId}-${seq}.log`);
        await sparseOutput(path, shape.artifactBytes, seq);
        await store.putToolCall(workerId, call, { filePath: path });
      } else {
        await store.putToolCall(workerId, call, denseOutput(shape.artifactBytes, seq));
      }
    }
  }
}

/**
 * Like {@link createRun} for runs too large to write call by call (the store syncs every file
 * to disk): writes worker 0 through the store, then copies its files to the other workers in
 * {@link FsArtifactStore}'s documented layout with their ids rewritten, and checks that the
 * store lists them all.
 */
export async function createRunByCopying(
  store: FsArtifactStore,
  shape: RunShape,
  scratch: string,
): Promise<void> {
  await createRun(store, { ...shape, workers: 1 }, scratch);
  const firstId = `${shape.runId}-w0`;
  const first = await store.getWorker(firstId);
  if (!first) throw new Error(`fixture: worker ${firstId} missing`);
  const firstDirectory = join(store.root, 'workers', firstId, 'tool_calls');
  const files = await Promise.all(
    (await readdir(firstDirectory)).map(async (name) => ({
      name,
      bytes: await readFile(join(firstDirectory, name)),
    })),
  );
  const runDirectory = join(store.root, 'runs', first.ownerId, shape.runId);
  const copy = async (index: number) => {
    const workerId = `${shape.runId}-w${index}`;
    const directory = join(store.root, 'workers', workerId);
    await mkdir(join(directory, 'tool_calls'), { recursive: true });
    const metadata = { ...first, workerId, jobId: String(index + 1) };
    await writeFile(join(directory, 'metadata.json'), `${JSON.stringify(metadata, null, 2)}\n`);
    for (const file of files) {
      let bytes: Uint8Array | string = file.bytes;
      if (file.name.endsWith('.json')) {
        const record = JSON.parse(file.bytes.toString('utf8')) as { artifactId: string };
        record.artifactId = workerId + record.artifactId.slice(firstId.length);
        bytes = `${JSON.stringify(record)}\n`;
      }
      await writeFile(join(directory, 'tool_calls', file.name), bytes);
    }
    await writeFile(join(runDirectory, workerId), '');
  };
  const indexes = Array.from({ length: shape.workers - 1 }, (_, offset) => offset + 1);
  for (let start = 0; start < indexes.length; start += 32) {
    await Promise.all(indexes.slice(start, start + 32).map(copy));
  }
  const workers = await store.listWorkers({ ownerId: first.ownerId, runId: shape.runId });
  const last = workers.at(-1);
  const lastCalls = last ? await store.listToolCalls(last.workerId) : [];
  if (workers.length !== shape.workers || lastCalls.length !== shape.callsPerWorker) {
    throw new Error(`fixture: store lists ${workers.length} workers, ${lastCalls.length} calls on the last`);
  }
}
