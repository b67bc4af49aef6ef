import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { openDataDir } from '@wharf/orchestrator/embedded';
import { openStream } from '@wharf/output-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { envWith, runWharf } from './wharf-cli.js';

// Real `wharf` processes (apps/cli/dist, so `pnpm build` first) on a store shared with the evidence.
const execFileAsync = promisify(execFile);
const cli = fileURLToPath(new URL('../../apps/cli/dist/main.js', import.meta.url));

describe('wharf outputs list on a store the evidence shares', { timeout: 120_000 }, () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const outIds: string[] = [];

  async function wharf(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    try {
      const { stdout, stderr } = await execFileAsync(
        process.execPath,
        [cli, 'outputs', 'list', '--data-dir', join(dir, 'cli'), ...args],
        { cwd: dir, env, timeout: 60_000 },
      );
      return { code: 0, stdout, stderr };
    } catch (error) {
      const failed = error as { code: number; stdout: string; stderr: string };
      return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
    }
  }

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-outputs-list-'));
    env = { ...process.env, WHARF_STORE: `sqlite://${join(dir, 'shared.db')}`, NO_COLOR: '1' };
    const data = await openDataDir(join(dir, 'worker'), { env });
    try {
      const producer = { ownerId: 'default', runId: 'run-1', spawnId: 'task-a' };
      for (const name of ['one.txt', 'two.txt', 'three.txt']) {
        const ref = await data.store.emit({
          producer,
          content: { kind: 'text', text: `body of ${name}` },
          idempotencyKey: name,
          name,
        });
        outIds.push(ref.outId);
      }
      // Evidence written between and after the outputs, as a worker records it.
      await data.artifacts.putWorker({
        workerId: 'w1',
        jobId: 'task-a.0',
        runId: 'run-1',
        ownerId: 'default',
        status: 'succeeded',
        startedAt: '2026-11-25T00:00:00.000Z',
      });
      await data.artifacts.putResult('w1', 'done');
    } finally {
      await data.close();
    }
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('leaves the evidence out by default and counts what it left out', async () => {
    const listed = await wharf([]);
    expect(listed.code, listed.stderr).toBe(0);
    const lines = listed.stdout.trim().split('\n');
    expect(lines.slice(0, 3).map((line) => line.split(' ')[0])).toEqual(outIds);
    // The worker's metadata, its job's claim and its result.
    expect(lines[3]).toBe('(3 evidence record(s) left out; --evidence shows them)');
    expect(lines).toHaveLength(4);

    const json = JSON.parse((await wharf(['--json'])).stdout) as { outId: string }[];
    expect(json.map((record) => record.outId)).toEqual(outIds);
  });

  it('--evidence lists the evidence records too', async () => {
    const json = JSON.parse((await wharf(['--evidence', '--json'])).stdout) as {
      outId: string;
      labels: Record<string, string>;
    }[];
    expect(json).toHaveLength(6);
    expect(
      json
        .filter((record) => record.labels['wharf.evidence.kind'] !== undefined)
        .map((record) => record.labels['wharf.evidence.kind'])
        .sort(),
    ).toEqual(['job-claim', 'metadata', 'result']);
  });

  it('pages with --limit and --cursor, and a page stays full when evidence is left out', async () => {
    const first = await wharf(['--limit', '2']);
    expect(first.code, first.stderr).toBe(0);
    const cursor = /… more: --cursor (\S+)/.exec(first.stdout)?.[1];
    expect(cursor).toBeDefined();
    expect(first.stdout).toContain(outIds[0]);
    expect(first.stdout).toContain(outIds[1]);

    const second = await wharf(['--limit', '2', '--cursor', cursor as string]);
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toContain(outIds[2]);
    expect(second.stdout).not.toContain(outIds[0]);
    expect(second.stdout).toContain('(3 evidence record(s) left out');
    expect(second.stdout).not.toContain('--cursor');
  });

  it('refuses a cursor it did not print, as a usage error', async () => {
    const bad = await wharf(['--cursor', 'not-a-cursor']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('cursor');
    expect(bad.stderr).not.toContain('unexpected error');
  });
});

describe('wharf outputs list --evidence on the default data plane (evidence beside the store)', {
  timeout: 120_000,
}, () => {
  let dir: string;
  let outId: string;
  const list = (args: string[]) =>
    runWharf(['outputs', 'list', '--data-dir', '.wharf', ...args], dir, {
      env: envWith({ WHARF_STORE: undefined, WHARF_BLOBS: undefined }),
    });

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-outputs-list-plain-'));
    const data = await openDataDir(join(dir, '.wharf'), { env: {} });
    try {
      const producer = { ownerId: 'default', runId: 'run-1', spawnId: 'build' };
      outId = (
        await data.store.emit({
          producer,
          content: { kind: 'text', text: 'built\n' },
          idempotencyKey: 'stdout',
          name: 'build.stdout.log',
        })
      ).outId;
      await data.artifacts.putWorker({
        workerId: 'w-build',
        jobId: 'build.0',
        runId: 'run-1',
        ownerId: 'default',
        status: 'failed',
        startedAt: '2026-11-25T00:00:00.000Z',
      });
      const call = { exitCode: 2, durationMs: 5, startedAt: 'a', endedAt: 'b' };
      await data.artifacts.putToolCall('w-build', { ...call, seq: 1, toolName: 'script' }, 'built\n');
      await data.artifacts.putToolCall(
        'w-build',
        { ...call, seq: 2, toolName: 'stderr' },
        'missing LICENSE\n',
      );
    } finally {
      await data.close();
    }
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("--evidence lists the page's runs' workers and tool calls from the artifacts directory", async () => {
    const plain = await list([]);
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stdout.trim().split('\n')).toHaveLength(1);

    const listed = await list(['--evidence']);
    expect(listed.code, listed.stderr).toBe(0);
    const lines = listed.stdout.trim().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^${outId} +6 B  run-1/build  build.stdout.log$`));
    expect(lines.slice(1)).toEqual([
      '',
      `Evidence of these runs, in ${join('.wharf', 'artifacts')} (\`wharf evidence <run>\` shows what a supervisor reads):`,
      'w-build  run-1/build.0  worker failed',
      '  w-build/tool_calls/001_script.txt           6 B  script exit 2',
      '  w-build/tool_calls/002_stderr.txt          16 B  stderr exit 2',
    ]);

    const json = JSON.parse((await list(['--evidence', '--json', '--run', 'run-1'])).stdout) as {
      outId?: string;
      kind?: string;
      toolCalls?: { bytes: number }[];
    }[];
    expect(json.map((entry) => entry.outId ?? entry.kind)).toEqual([outId, 'evidence']);
    expect(json[1]?.toolCalls?.map((call) => call.bytes)).toEqual([6, 16]);

    const none = await list(['--evidence', '--run', 'run-2']);
    expect(none.stdout).toContain(`(no evidence recorded for these runs in ${join('.wharf', 'artifacts')})`);
  });
});

describe('wharf outputs list and output streams', { timeout: 120_000 }, () => {
  let dir: string;
  let sealed: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-outputs-streams-'));
    const data = await openDataDir(join(dir, '.wharf'));
    try {
      const writer = await openStream(data.store, {
        producer: { ownerId: 'default', runId: 'run-s', spawnId: 'draft' },
        key: 'run-s/draft/step-0/text',
        attempt: 1,
        name: 'draft.step-0.md',
      });
      await writer.append('first ');
      await writer.flush();
      await writer.append('second');
      sealed = (await writer.seal()).outId;
    } finally {
      await data.close();
    }
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("lists a stream's sealed whole and counts its chunks and markers, which --streams lists too", async () => {
    const plain = await runWharf(['outputs', 'list', '--data-dir', '.wharf'], dir);
    expect(plain.code, plain.stderr).toBe(0);
    const lines = plain.stdout.trim().split('\n');
    expect(lines[0]?.split(' ')[0]).toBe(sealed);
    // The open marker, two chunks and the sealed marker.
    expect(lines.slice(1)).toEqual([
      '(4 stream chunk(s) and marker(s) left out; --streams shows them, `wharf outputs tail <str_…>` reads a stream)',
    ]);
    const all = await runWharf(['outputs', 'list', '--streams', '--json', '--data-dir', '.wharf'], dir);
    const records = JSON.parse(all.stdout) as { labels: Record<string, string> }[];
    expect(records.map((record) => record.labels['wharf.stream.part']).sort()).toEqual([
      'chunk',
      'chunk',
      'open',
      'seal',
      'sealed',
    ]);
  });
});
