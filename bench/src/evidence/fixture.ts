import { open } from 'node:fs/promises';
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
