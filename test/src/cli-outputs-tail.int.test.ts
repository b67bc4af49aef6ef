import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { streamId } from '@wharf/output-store';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWharf, type SpawnedWharf, spawnWharf } from './wharf-cli.js';

// A writer process streams into a SQLite data directory's store while a real `wharf outputs tail
// --follow` process (apps/cli/dist: `pnpm build` first) follows it. The writer's attempt 1 stands
// for a worker that died mid-stream; attempt 2 is its retry.
const producer = { ownerId: 'default', runId: 'run-1', spawnId: 'task-a' };
const pieces = Array.from({ length: 40 }, (_, index) => `piece ${index} of the answer\n`);

const writerScript = `
import { access } from 'node:fs/promises';
import { openDataDir } from '@wharf/orchestrator/embedded';
import { openStream } from '@wharf/output-store';
const dir = process.env.TAIL_TEST_DIR;
const data = await openDataDir(dir + '/.wharf', { env: {} });
const producer = ${JSON.stringify(producer)};
const options = { producer, key: 'answer', name: 'task-a.md', contentType: 'text/markdown', flushMs: 20 };
const dead = await openStream(data.store, { ...options, attempt: 1 });
await dead.append('TEXT OF THE ATTEMPT THAT DIED');
await dead.flush();
const writer = await openStream(data.store, { ...options, attempt: 2 });
console.log('stream ' + writer.stream);
for (;;) { try { await access(dir + '/go'); break; } catch { await new Promise((r) => setTimeout(r, 20)); } }
for (const piece of ${JSON.stringify(pieces)}) {
  await writer.append(piece);
  await new Promise((r) => setTimeout(r, 25));
}
const ref = await writer.seal();
console.log('sealed ' + ref.outId);
await data.close();
`;

describe('wharf outputs tail', { timeout: 60_000 }, () => {
  let dir: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-outputs-tail-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('follows a stream another process writes, live, until it is sealed, without the dead attempt', async () => {
    const writer = spawn(process.execPath, ['--input-type=module', '-e', writerScript], {
      cwd: fileURLToPath(new URL('..', import.meta.url)),
      env: { ...process.env, TAIL_TEST_DIR: dir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let written = '';
    let writerErr = '';
    writer.stdout.on('data', (chunk: Buffer) => {
      written += chunk.toString('utf8');
    });
    writer.stderr.on('data', (chunk: Buffer) => {
      writerErr += chunk.toString('utf8');
    });
    const writerDone = new Promise<number | null>((resolve) => writer.once('close', resolve));
    const expected = streamId(producer, 'answer');
    for (let waited = 0; !written.includes('stream '); waited += 20) {
      if (waited > 30_000 || writer.exitCode !== null) throw new Error(`writer: ${written}\n${writerErr}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(written).toContain(`stream ${expected}`);

    const tail: SpawnedWharf = spawnWharf(
      ['outputs', 'tail', expected, '--follow', '--data-dir', '.wharf'],
      dir,
    );
    await tail.waitFor(/attempt 2 is current/);
    expect(tail.output().stderr).toContain('(attempt 1 abandoned: superseded by attempt 2)');
    await writeFile(join(dir, 'go'), '');
    // Text reaches the tail while the writer is still writing, not at the end.
    await tail.waitFor(/piece 5 of/, 'stdout');
    expect(written).not.toContain('sealed');
    const ended = await tail.exited;
    expect(await writerDone, writerErr).toBe(0);
    expect(ended.code, tail.output().stderr).toBe(0);
    expect(tail.output().stdout).toBe(pieces.join(''));
    expect(tail.output().stdout).not.toContain('ATTEMPT THAT DIED');

    // The seal reads the same, by its out id, and is the output `outputs show` prints.
    const sealId = /sealed (out_\S+)/.exec(written)?.[1] as string;
    const bySeal = await runWharf(['outputs', 'tail', sealId, '--data-dir', '.wharf'], dir);
    expect(bySeal.code, bySeal.stderr).toBe(0);
    expect(bySeal.stdout).toBe(pieces.join(''));
    expect((await runWharf(['outputs', 'show', sealId, '--data-dir', '.wharf'], dir)).stdout).toBe(
      pieces.join(''),
    );
    const json = await runWharf(['outputs', 'tail', expected, '--json', '--data-dir', '.wharf'], dir);
    const events = json.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { type: string; text?: string; outId?: string });
    expect(events[0]).toMatchObject({
      type: 'attempt',
      attempt: 2,
      previous: { attempt: 1, state: 'abandoned' },
    });
    expect(events.at(-1)).toEqual({ type: 'sealed', stream: expected, attempt: 2, outId: sealId });
    expect(events.map((event) => event.text ?? '').join('')).toBe(pieces.join(''));
  });

  it('exits 3 for a stream with nothing stored, and 2 for an id that is no stream or output id', async () => {
    const missing = await runWharf(
      ['outputs', 'tail', 'str_AAAAAAAAAAAAAAAAAAAAAA', '--data-dir', '.wharf'],
      dir,
    );
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('stream str_AAAAAAAAAAAAAAAAAAAAAA not found');
    const bad = await runWharf(['outputs', 'tail', 'nonsense', '--data-dir', '.wharf'], dir);
    expect(bad.code).toBe(2);
  });
});
