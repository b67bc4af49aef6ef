import {
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  truncate,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FsArtifactStore } from './fs-artifact-store.js';
import { describeArtifactStoreContract } from './testing/artifact-store-contract.js';

describeArtifactStoreContract('FsArtifactStore', async ({ allowedRoot, spoolDirectory }) => {
  const root = await mkdtemp(join(tmpdir(), 'wharf-evidence-fs-'));
  const store = new FsArtifactStore({
    root,
    allowedRoots: [allowedRoot],
    spoolDirectories: [spoolDirectory],
  });
  return {
    store,
    bytesRead: () => store.bytesRead,
    cleanup: () => rm(root, { recursive: true, force: true }),
  };
});

/** The worker and the tool call most tests below record. */
const worker = { workerId: 'w', jobId: '1', runId: 'r', ownerId: 'o', startedAt: 't' } as const;
const call = { seq: 1, toolName: 'build', exitCode: 0, durationMs: 1, startedAt: 'a', endedAt: 'b' };

describe('FsArtifactStore layout', () => {
  let root = '';
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('writes the documented directory layout and leaves no temporary files', async () => {
    root = await mkdtemp(join(tmpdir(), 'wharf-evidence-layout-'));
    const store = new FsArtifactStore({ root });
    await store.putWorker({
      workerId: 'abc-123',
      jobId: '123',
      runId: '48',
      ownerId: 'o1',
      status: 'succeeded',
      startedAt: '2026-01-18T10:00:00.000Z',
    });
    await store.putResult('abc-123', '');
    await store.putThread('abc-123', [{ role: 'user', content: 'go' }]);
    await store.putToolCall(
      'abc-123',
      { seq: 1, toolName: 'ssh_exec', exitCode: 0, durationMs: 234, startedAt: 'a', endedAt: 'b' },
      'Filesystem Size\n',
    );
    const directory = join(root, 'workers', 'abc-123');
    expect((await readdir(directory)).sort()).toEqual([
      'metadata.json',
      'result.txt',
      'thread.jsonl',
      'tool_calls',
    ]);
    expect((await readdir(join(directory, 'tool_calls'))).sort()).toEqual([
      '001_ssh_exec.json',
      '001_ssh_exec.txt',
    ]);
    expect(await readFile(join(directory, 'tool_calls', '001_ssh_exec.txt'), 'utf8')).toBe(
      'Filesystem Size\n',
    );
    expect(await readFile(join(directory, 'thread.jsonl'), 'utf8')).toBe('{"role":"user","content":"go"}\n');
    expect(await readdir(join(root, 'runs', 'o1', '48'))).toEqual(['abc-123']);
    expect(await readFile(join(root, 'jobs', 'o1', '48', '123'), 'utf8')).toBe('abc-123');
  });

  it('takes over the claim of a worker that is not stored', async () => {
    root = await mkdtemp(join(tmpdir(), 'wharf-evidence-stale-claim-'));
    const store = new FsArtifactStore({ root });
    // A claim naming a worker that is not stored (removed by hand, say).
    await mkdir(join(root, 'jobs', 'o', 'r'), { recursive: true });
    await writeFile(join(root, 'jobs', 'o', 'r', '7'), 'gone');
    await store.putWorker({
      workerId: 'w2',
      jobId: '7',
      runId: 'r',
      ownerId: 'o',
      status: 'running',
      startedAt: 't',
    });
    expect(await readFile(join(root, 'jobs', 'o', 'r', '7'), 'utf8')).toBe('w2');
    expect((await store.listWorkers({ ownerId: 'o', runId: 'r' })).map((entry) => entry.workerId)).toEqual([
      'w2',
    ]);
  });

  it('reads the tail of a sparse 1 GB output by positioned reads only', async () => {
    root = await mkdtemp(join(tmpdir(), 'wharf-evidence-sparse-'));
    const store = new FsArtifactStore({ root, spoolDirectories: [join(root, 'spool')] });
    await mkdir(join(root, 'spool'));
    await store.putWorker({
      workerId: 'w',
      jobId: '1',
      runId: 'r',
      ownerId: 'o',
      status: 'succeeded',
      startedAt: 't',
    });
    const capture = join(root, 'spool', 'capture.log');
    await writeFile(capture, 'head line\n');
    await truncate(capture, 1024 ** 3);
    const record = await store.putToolCall(
      'w',
      { seq: 1, toolName: 'build', exitCode: 1, durationMs: 1, startedAt: 'a', endedAt: 'b' },
      { filePath: capture },
    );
    expect(record.bytes).toBe(1024 ** 3);
    await expect(stat(capture)).rejects.toThrow();
    const tail = await store.readToolOutput('w', 1, { start: 1024 ** 3 - 10, end: 1024 ** 3 });
    expect(tail).toEqual(new Uint8Array(10));
    expect(store.bytesRead).toBe(10);
  });

  it('reports a corrupt metadata file as CORRUPT_ARTIFACT naming the file', async () => {
    root = await mkdtemp(join(tmpdir(), 'wharf-evidence-corrupt-'));
    const store = new FsArtifactStore({ root });
    await store.putWorker({ ...worker, status: 'running' });
    await writeFile(join(root, 'workers', 'w', 'metadata.json'), '{"workerId": ');
    await expect(store.getWorker('w')).rejects.toMatchObject({ code: 'CORRUPT_ARTIFACT' });
    await expect(store.getWorker('w')).rejects.toThrow('w/metadata.json');
  });

  it('takes no file path at all when no directory is configured, and leaves the file alone', async () => {
    root = await mkdtemp(join(tmpdir(), 'wharf-evidence-nopaths-'));
    const store = new FsArtifactStore({ root });
    await store.putWorker({ ...worker, status: 'running' });
    const capture = join(root, 'capture.log');
    await writeFile(capture, 'mine\n');
    await expect(store.putToolCall('w', call, { filePath: capture })).rejects.toMatchObject({
      code: 'PATH_NOT_ALLOWED',
    });
    expect(await readFile(capture, 'utf8')).toBe('mine\n');
    expect(await store.listToolCalls('w')).toEqual([]);
  });

  it('takes files handed over from a spool directory declared after construction', async () => {
    root = await mkdtemp(join(tmpdir(), 'wharf-evidence-declared-'));
    const spool = join(root, 'work');
    await mkdir(spool);
    const store = new FsArtifactStore({ root: join(root, 'store') });
    await store.putWorker({ ...worker, status: 'running' });
    const capture = join(spool, 'capture.log');
    await writeFile(capture, 'spilled\n');
    await expect(store.putToolCall('w', call, { filePath: capture })).rejects.toMatchObject({
      code: 'PATH_NOT_ALLOWED',
    });
    store.addSpoolDirectory(spool);
    await store.putToolCall('w', call, { filePath: capture });
    const [record] = await store.listToolCalls('w');
    expect(record?.bytes).toBe(8);
    expect(new TextDecoder().decode(await store.readToolOutput('w', 1))).toBe('spilled\n');
    await expect(readFile(capture)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses to read a stored file replaced by a symbolic link', async () => {
    root = await mkdtemp(join(tmpdir(), 'wharf-evidence-planted-'));
    const store = new FsArtifactStore({ root: join(root, 'store') });
    await store.putWorker({ ...worker, status: 'running' });
    await store.putToolCall('w', call, 'ok\n');
    const secret = join(root, 'secret.txt');
    await writeFile(secret, 'SECRET\n');
    const output = join(root, 'store', 'workers', 'w', 'tool_calls', '001_build.txt');
    await rm(output);
    await symlink(secret, output);
    await expect(store.readToolOutput('w', 1)).rejects.toMatchObject({ code: 'CORRUPT_ARTIFACT' });
    await expect(
      new FsArtifactStore({ root: join(root, 'store') }).readToolOutput('w', 1),
    ).rejects.toMatchObject({
      code: 'CORRUPT_ARTIFACT',
    });
    const metadata = join(root, 'store', 'workers', 'w', 'metadata.json');
    await rm(metadata);
    await symlink(secret, metadata);
    await expect(store.getWorker('w')).rejects.toMatchObject({ code: 'CORRUPT_ARTIFACT' });
  });

  it("makes a worker's folder again when it was removed between two writes", async () => {
    root = await mkdtemp(join(tmpdir(), 'wharf-evidence-removed-'));
    const store = new FsArtifactStore({ root: join(root, 'store') });
    await store.putWorker({ ...worker, status: 'running' });
    // What a collector removing a run's folders leaves: nothing of the worker, its run or its job.
    for (const folder of ['workers', 'runs', 'jobs'])
      await rm(join(root, 'store', folder), { recursive: true });
    await store.putWorker({ ...worker, status: 'succeeded' });
    await store.putResult('w', 'done');
    expect(await store.getWorker('w')).toMatchObject({ status: 'succeeded' });
    expect(await store.getResult('w')).toBe('done');
    expect((await store.listWorkers({ ownerId: 'o', runId: 'r' })).map((entry) => entry.workerId)).toEqual([
      'w',
    ]);
    expect((await stat(join(root, 'store', 'workers', 'w'))).mode & 0o777).toBe(0o700);
  });

  it("keeps a run's index entry as it is on an update, and replaces a symbolic link planted there without touching its target", async () => {
    root = await mkdtemp(join(tmpdir(), 'wharf-evidence-index-'));
    const store = new FsArtifactStore({ root: join(root, 'store') });
    await store.putWorker({ ...worker, status: 'running' });
    const entry = join(root, 'store', 'runs', 'o', 'r', 'w');
    const created = await stat(entry);
    await store.putWorker({ ...worker, status: 'succeeded' });
    expect((await stat(entry)).ino).toBe(created.ino);
    expect((await stat(entry)).size).toBe(0);

    const target = join(root, 'elsewhere.txt');
    await writeFile(target, 'keep\n');
    await rm(entry);
    await symlink(target, entry);
    await store.putWorker({ ...worker, status: 'failed' });
    expect((await lstat(entry)).isFile()).toBe(true);
    expect(await readFile(target, 'utf8')).toBe('keep\n');
    expect(
      (await readdir(join(root, 'store', 'runs', 'o', 'r'))).filter((name) => name.endsWith('.tmp')),
    ).toEqual([]);
  });

  it('refuses files under a spool directory replaced by a link to elsewhere after it was first used', async () => {
    root = await mkdtemp(join(tmpdir(), 'wharf-evidence-moved-spool-'));
    const spool = join(root, 'work');
    const elsewhere = join(root, 'elsewhere');
    await mkdir(spool);
    await mkdir(elsewhere);
    const store = new FsArtifactStore({ root: join(root, 'store'), spoolDirectories: [spool] });
    await store.putWorker({ ...worker, status: 'running' });
    await writeFile(join(spool, 'first.log'), 'first\n');
    await store.putToolCall('w', call, { filePath: join(spool, 'first.log') });
    await rm(spool, { recursive: true });
    await symlink(elsewhere, spool);
    await writeFile(join(elsewhere, 'second.log'), 'second\n');
    await expect(
      store.putToolCall('w', { ...call, seq: 2 }, { filePath: join(spool, 'second.log') }),
    ).rejects.toMatchObject({ code: 'PATH_NOT_ALLOWED' });
    expect(await readFile(join(elsewhere, 'second.log'), 'utf8')).toBe('second\n');
  });
});
