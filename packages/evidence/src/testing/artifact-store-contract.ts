import { link, lstat, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ArtifactStore, ToolCallInput, WorkerMetadata } from '../artifact-store.js';
import { EvidenceError } from '../evidence-error.js';

/**
 * What a backend under test provides to {@link describeArtifactStoreContract}.
 *
 * @example
 * ```ts
 * const harness: ArtifactStoreHarness = { store, bytesRead: () => store.bytesRead };
 * ```
 */
export interface ArtifactStoreHarness {
  store: ArtifactStore;
  /** Output bytes the backend has read so far, when it can count them. */
  bytesRead?: () => number;
  /** Releases everything the harness created. */
  cleanup?: () => Promise<void>;
}

/**
 * Directories the contract gives a backend's factory: the store under test must accept
 * `{ filePath }` outputs from them (copying from `allowedRoot`, taking over files from
 * `spoolDirectory`) and refuse every other path.
 *
 * @example
 * ```ts
 * describeArtifactStoreContract('FsArtifactStore', async ({ allowedRoot, spoolDirectory }) => ({
 *   store: new FsArtifactStore({ root, allowedRoots: [allowedRoot], spoolDirectories: [spoolDirectory] }),
 * }));
 * ```
 */
export interface ArtifactStoreFileDirectories {
  allowedRoot: string;
  spoolDirectory: string;
}

const worker = (overrides: Partial<WorkerMetadata> = {}): WorkerMetadata => ({
  workerId: 'w1',
  jobId: '1',
  runId: 'r1',
  ownerId: 'o1',
  status: 'running',
  startedAt: '2026-01-18T10:00:00.000Z',
  ...overrides,
});

const call = (seq: number, overrides: Partial<ToolCallInput> = {}): ToolCallInput => ({
  seq,
  toolName: 'ssh_exec',
  exitCode: 0,
  durationMs: 10 * seq,
  startedAt: '2026-01-18T10:00:01.000Z',
  endedAt: '2026-01-18T10:00:02.000Z',
  ...overrides,
});

async function expectCode(promise: Promise<unknown>, code: string): Promise<EvidenceError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(EvidenceError.isInstance(error), `expected EvidenceError ${code}, got ${String(error)}`).toBe(true);
  expect((error as EvidenceError).code).toBe(code);
  return error as EvidenceError;
}

const text = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/**
 * The behaviour every {@link ArtifactStore} backend must show, as a vitest suite. Call it
 * from a test file with a factory that returns a fresh, empty store for each test, set up
 * to take files from the given directories (see {@link ArtifactStoreFileDirectories}).
 *
 * @example
 * ```ts
 * import { describeArtifactStoreContract } from '@wharf/evidence/testing';
 * describeArtifactStoreContract('MyStore', async (directories) => ({ store: new MyStore(directories) }));
 * ```
 */
export function describeArtifactStoreContract(
  name: string,
  factory: (directories: ArtifactStoreFileDirectories) => Promise<ArtifactStoreHarness>,
): void {
  describe(`ArtifactStore contract: ${name}`, () => {
    let harness: ArtifactStoreHarness;
    let store: ArtifactStore;
    let files: string;
    let directories: ArtifactStoreFileDirectories;
    beforeEach(async () => {
      files = await mkdtemp(join(tmpdir(), 'wharf-contract-files-'));
      directories = { allowedRoot: join(files, 'allowed'), spoolDirectory: join(files, 'spool') };
      await mkdir(directories.allowedRoot);
      await mkdir(directories.spoolDirectory);
      await mkdir(join(files, 'outside'));
      harness = await factory(directories);
      store = harness.store;
    });
    afterEach(async () => {
      await harness.cleanup?.();
      await rm(files, { recursive: true, force: true });
    });

    it('stores and returns worker metadata; unknown workers are undefined', async () => {
      await store.putWorker(worker({ task: 'check disk' }));
      expect(await store.getWorker('w1')).toEqual(worker({ task: 'check disk' }));
      expect(await store.getWorker('nobody')).toBeUndefined();
      await store.putWorker(
        worker({ status: 'succeeded', endedAt: '2026-01-18T10:01:00.000Z', durationMs: 60_000 }),
      );
      expect((await store.getWorker('w1'))?.status).toBe('succeeded');
    });

    it('lists workers by owner and run in natural job order', async () => {
      await store.putWorker(worker({ workerId: 'a', jobId: '10' }));
      await store.putWorker(worker({ workerId: 'b', jobId: '9' }));
      await store.putWorker(worker({ workerId: 'c', jobId: '11', runId: 'r2' }));
      await store.putWorker(worker({ workerId: 'd', jobId: '12', ownerId: 'o2' }));
      const listed = await store.listWorkers({ ownerId: 'o1', runId: 'r1' });
      expect(listed.map((entry) => entry.workerId)).toEqual(['b', 'a']);
      expect(await store.listWorkers({ ownerId: 'o2', runId: 'r2' })).toEqual([]);
    });

    it('never moves a worker to another owner, run or job', async () => {
      await store.putWorker(worker());
      await expectCode(store.putWorker(worker({ ownerId: 'o2' })), 'OWNERSHIP_CONFLICT');
      await expectCode(store.putWorker(worker({ runId: 'r9' })), 'OWNERSHIP_CONFLICT');
      await expectCode(store.putWorker(worker({ jobId: '2' })), 'OWNERSHIP_CONFLICT');
      await expectCode(store.putWorker(worker({ workerId: 'w2' })), 'OWNERSHIP_CONFLICT');
      expect(await store.getWorker('w1')).toEqual(worker());
      expect(await store.listWorkers({ ownerId: 'o2', runId: 'r1' })).toEqual([]);
      // The same job id in another run, or of another owner, is another job.
      await store.putWorker(worker({ workerId: 'w3', runId: 'r2' }));
      await store.putWorker(worker({ workerId: 'w4', ownerId: 'o2' }));
      expect(
        (await store.listWorkers({ ownerId: 'o2', runId: 'r1' })).map((entry) => entry.workerId),
      ).toEqual(['w4']);
    });

    it('gives a job to one of several new workers storing themselves at once', async () => {
      const outcomes = await Promise.allSettled(
        Array.from({ length: 6 }, (_, index) => store.putWorker(worker({ workerId: `w${index}` }))),
      );
      const stored = outcomes.flatMap((outcome, index) =>
        outcome.status === 'fulfilled' ? [`w${index}`] : [],
      );
      expect(stored).toHaveLength(1);
      for (const outcome of outcomes)
        if (outcome.status === 'rejected')
          expect(outcome.reason).toMatchObject({ code: 'OWNERSHIP_CONFLICT' });
      // The losers are not left stored; the holder stores itself again (a retried activity).
      expect(
        (await store.listWorkers({ ownerId: 'o1', runId: 'r1' })).map((entry) => entry.workerId),
      ).toEqual(stored);
      await store.putWorker(worker({ workerId: stored[0] as string, status: 'succeeded' }));
      expect((await store.getWorker(stored[0] as string))?.status).toBe('succeeded');
    });

    it('rejects bad metadata and ids with a typed error naming the field', async () => {
      const error = await expectCode(
        store.putWorker({ ...worker(), status: 'exploded' } as unknown as WorkerMetadata),
        'INVALID_ARTIFACT',
      );
      expect(error.message).toContain('status');
      await expectCode(store.putWorker(worker({ workerId: '../escape' })), 'INVALID_ARTIFACT');
      await expectCode(store.getWorker('../escape'), 'INVALID_ID');
      expect(await store.getWorker('w1')).toBeUndefined();
    });

    it('keeps the final result, including an empty one', async () => {
      await expectCode(store.putResult('w1', 'x'), 'ARTIFACT_NOT_FOUND');
      await store.putWorker(worker());
      expect(await store.getResult('w1')).toBeUndefined();
      await store.putResult('w1', '');
      expect(await store.getResult('w1')).toBe('');
      await store.putResult('w1', 'Disk is 45% full — ok ✓');
      expect(await store.getResult('w1')).toBe('Disk is 45% full — ok ✓');
    });

    it('round-trips the thread and refuses entries that are not JSON without losing the old one', async () => {
      await store.putWorker(worker());
      const thread = [
        { role: 'user', content: 'check disk' },
        { role: 'assistant', content: [{ type: 'text' }] },
      ];
      await store.putThread('w1', thread);
      expect(await store.getThread('w1')).toEqual(thread);
      await expectCode(store.putThread('w1', [{ ok: 1 }, undefined]), 'INVALID_ARTIFACT');
      await expectCode(store.putThread('w1', [{ big: 1n }]), 'INVALID_ARTIFACT');
      expect(await store.getThread('w1')).toEqual(thread);
    });

    it('records tool calls with their execution metadata and sizes, ordered by seq', async () => {
      await store.putWorker(worker());
      const second = await store.putToolCall(
        'w1',
        call(2, { exitCode: 1, stderrBytes: 5 }),
        'Error: refused\n',
      );
      const first = await store.putToolCall(
        'w1',
        call(1, { toolName: 'http request' }),
        new Uint8Array([1, 2, 3]),
      );
      expect(second).toMatchObject({ seq: 2, exitCode: 1, stderrBytes: 5, bytes: 15 });
      expect(second.artifactId).toBe('w1/tool_calls/002_ssh_exec.txt');
      expect(first.artifactId).toBe('w1/tool_calls/001_http_request.txt');
      expect(first.stderrBytes).toBe(0);
      expect(await store.listToolCalls('w1')).toEqual([first, second]);
      expect(await store.listToolCalls('nobody')).toEqual([]);
    });

    it('takes over a tool output file handed over in its spool directory', async () => {
      await store.putWorker(worker());
      const path = join(directories.spoolDirectory, 'capture.log');
      await writeFile(path, 'captured output\n');
      const record = await store.putToolCall('w1', call(1), { filePath: path });
      expect(record.bytes).toBe(16);
      expect(text(await store.readToolOutput('w1', 1))).toBe('captured output\n');
      await expect(stat(path)).rejects.toMatchObject({ code: 'ENOENT' });
      await expectCode(store.putToolCall('w1', call(2), { filePath: `${path}.missing` }), 'INVALID_ARTIFACT');
      expect((await store.listToolCalls('w1')).map((entry) => entry.seq)).toEqual([1]);
    });

    it('copies a tool output file from an allowed root and leaves the file as it was', async () => {
      await store.putWorker(worker());
      const path = join(directories.allowedRoot, 'nested', 'build.log');
      await mkdir(join(directories.allowedRoot, 'nested'));
      await writeFile(path, 'build ok\n');
      const before = await stat(path);
      const record = await store.putToolCall('w1', call(1), { filePath: path });
      expect(record.bytes).toBe(9);
      expect(text(await store.readToolOutput('w1', 1))).toBe('build ok\n');
      const after = await stat(path);
      expect(await readFile(path, 'utf8')).toBe('build ok\n');
      expect([after.ino, after.nlink, after.mtimeMs]).toEqual([before.ino, before.nlink, before.mtimeMs]);
    });

    it('refuses a path outside its directories, a symbolic link out of them and a ".." path, touching nothing', async () => {
      await store.putWorker(worker());
      const secret = join(files, 'outside', 'secret.txt');
      await writeFile(secret, 'root:x:0:0\n');
      const before = await stat(secret);
      const { allowedRoot, spoolDirectory } = directories;
      await symlink(secret, join(allowedRoot, 'link.log'));
      await symlink(secret, join(spoolDirectory, 'link.log'));
      await symlink(join(files, 'outside'), join(spoolDirectory, 'linked-dir'));
      await mkdir(join(allowedRoot, 'a-directory'));
      const refused = [
        secret,
        join(allowedRoot, 'link.log'),
        join(spoolDirectory, 'link.log'),
        join(spoolDirectory, 'linked-dir', 'secret.txt'),
        `${spoolDirectory}/../outside/secret.txt`,
        `${allowedRoot}/../outside/secret.txt`,
        join(allowedRoot, 'a-directory'),
      ];
      for (const [index, filePath] of refused.entries()) {
        const error = await expectCode(
          store.putToolCall('w1', call(index + 1), { filePath }),
          'PATH_NOT_ALLOWED',
        );
        expect(error.message).toContain(filePath);
      }
      const after = await stat(secret);
      expect(await readFile(secret, 'utf8')).toBe('root:x:0:0\n');
      expect([after.ino, after.nlink, after.mtimeMs]).toEqual([before.ino, before.nlink, before.mtimeMs]);
      expect((await lstat(join(spoolDirectory, 'link.log'))).isSymbolicLink()).toBe(true);
      expect(await store.listToolCalls('w1')).toEqual([]);
    });

    it('refuses a hard link to a file outside, touching nothing; takes one whose other names are declared inside', async () => {
      await store.putWorker(worker());
      const secret = join(files, 'outside', 'secret.txt');
      await writeFile(secret, 'root:x:0:0\n');
      const { allowedRoot, spoolDirectory } = directories;
      await link(secret, join(spoolDirectory, 'hard.log'));
      await link(secret, join(allowedRoot, 'hard.log'));
      for (const filePath of [join(spoolDirectory, 'hard.log'), join(allowedRoot, 'hard.log')]) {
        const error = await expectCode(store.putToolCall('w1', call(1), { filePath }), 'PATH_NOT_ALLOWED');
        expect(error.message).toContain('hard links');
        // Naming one of the other names does not account for the one outside.
        await expectCode(
          store.putToolCall('w1', call(1), { filePath, hardLinks: [join(spoolDirectory, 'hard.log')] }),
          'PATH_NOT_ALLOWED',
        );
      }
      // A declared name must be the same file and inside too.
      await writeFile(join(spoolDirectory, 'other.log'), 'other\n');
      await expectCode(
        store.putToolCall('w1', call(1), {
          filePath: join(spoolDirectory, 'hard.log'),
          hardLinks: [join(spoolDirectory, 'other.log'), join(allowedRoot, 'hard.log'), secret],
        }),
        'PATH_NOT_ALLOWED',
      );
      expect(await readFile(secret, 'utf8')).toBe('root:x:0:0\n');
      expect((await stat(secret)).nlink).toBe(3);
      expect(await store.listToolCalls('w1')).toEqual([]);

      // A capture linked inside the spool, both names declared: taken, and the other name kept.
      const capture = join(spoolDirectory, 'capture.log');
      await writeFile(capture, 'captured\n');
      await link(capture, `${capture}.artifact`);
      await store.putToolCall('w1', call(1), { filePath: `${capture}.artifact`, hardLinks: [capture] });
      expect(text(await store.readToolOutput('w1', 1))).toBe('captured\n');
      expect(await readFile(capture, 'utf8')).toBe('captured\n');
    });

    it('replaces a tool call recorded again with the same seq', async () => {
      await store.putWorker(worker());
      await store.putToolCall('w1', call(1), 'first');
      await store.putToolCall('w1', call(1, { toolName: 'other', exitCode: 2 }), 'second!');
      const calls = await store.listToolCalls('w1');
      expect(calls).toHaveLength(1);
      expect(calls[0]).toMatchObject({ toolName: 'other', exitCode: 2, bytes: 7 });
      expect(text(await store.readToolOutput('w1', 1))).toBe('second!');
    });

    it('rejects a bad tool call and stores nothing', async () => {
      await store.putWorker(worker());
      const error = await expectCode(store.putToolCall('w1', call(0), 'x'), 'INVALID_ARTIFACT');
      expect(error.message).toContain('seq');
      await expectCode(store.putToolCall('ghost', call(1), 'x'), 'ARTIFACT_NOT_FOUND');
      expect(await store.listToolCalls('w1')).toEqual([]);
    });

    it('reads byte ranges exactly, clamped at the end', async () => {
      await store.putWorker(worker());
      const body = 'héllo wörld ✓ 🚀 end';
      const bytes = new TextEncoder().encode(body);
      await store.putToolCall('w1', call(1), body);
      expect(await store.readToolOutput('w1', 1)).toEqual(bytes);
      expect(await store.readToolOutput('w1', 1, { start: 3, end: 8 })).toEqual(bytes.subarray(3, 8));
      expect(
        await store.readToolOutput('w1', 1, { start: bytes.length - 4, end: bytes.length + 96 }),
      ).toEqual(bytes.subarray(bytes.length - 4));
      expect((await store.readToolOutput('w1', 1, { start: 10_000, end: 10_005 })).length).toBe(0);
      expect((await store.readToolOutput('w1', 1, { start: 0, end: 0 })).length).toBe(0);
      await expectCode(store.readToolOutput('w1', 1, { start: -1, end: 5 }), 'INVALID_RANGE');
      await expectCode(store.readToolOutput('w1', 1, { start: 0, end: 1.5 }), 'INVALID_RANGE');
      await expectCode(store.readToolOutput('w1', 1, { start: 5, end: 3 }), 'INVALID_RANGE');
      expect(await store.readToolOutput('w1', 1, { start: bytes.length - 2 })).toEqual(
        bytes.subarray(bytes.length - 2),
      );
      expect(await store.readToolOutput('w1', 1, { end: 2 })).toEqual(bytes.subarray(0, 2));
      await expectCode(store.readToolOutput('w1', 7), 'ARTIFACT_NOT_FOUND');
      await expectCode(store.readToolOutput('ghost', 1), 'ARTIFACT_NOT_FOUND');
    });

    it('reads a small range of a large output without reading the whole of it', async () => {
      await store.putWorker(worker());
      const big = new Uint8Array(4 * 1024 * 1024);
      for (let index = 0; index < big.length; index++) big[index] = 97 + (index % 26);
      await store.putToolCall('w1', call(1), big);
      const before = harness.bytesRead?.() ?? 0;
      const slice = await store.readToolOutput('w1', 1, { start: 3_000_000, end: 3_000_100 });
      expect(slice).toEqual(big.subarray(3_000_000, 3_000_100));
      if (harness.bytesRead) expect(harness.bytesRead() - before).toBeLessThanOrEqual(100 + 64 * 1024);
    });

    it('keeps every one of many concurrent tool calls', async () => {
      await store.putWorker(worker());
      await Promise.all(
        Array.from({ length: 20 }, (_, index) =>
          store.putToolCall('w1', call(index + 1), `output ${index + 1}`),
        ),
      );
      const calls = await store.listToolCalls('w1');
      expect(calls.map((entry) => entry.seq)).toEqual(Array.from({ length: 20 }, (_, index) => index + 1));
    });

    it('deletes a worker with all its artifacts', async () => {
      await store.putWorker(worker());
      await store.putResult('w1', 'done');
      await store.putToolCall('w1', call(1), 'out');
      expect(await store.deleteWorker('w1')).toBe(true);
      expect(await store.getWorker('w1')).toBeUndefined();
      expect(await store.getResult('w1')).toBeUndefined();
      expect(await store.listToolCalls('w1')).toEqual([]);
      expect(await store.listWorkers({ ownerId: 'o1', runId: 'r1' })).toEqual([]);
      await expectCode(store.readToolOutput('w1', 1), 'ARTIFACT_NOT_FOUND');
      expect(await store.deleteWorker('w1')).toBe(false);
      // Its job is free again.
      await store.putWorker(worker({ workerId: 'w2' }));
      expect(
        (await store.listWorkers({ ownerId: 'o1', runId: 'r1' })).map((entry) => entry.workerId),
      ).toEqual(['w2']);
    });
  });
}
