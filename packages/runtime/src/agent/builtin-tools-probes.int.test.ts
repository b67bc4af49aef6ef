import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import {
  link,
  mkdir,
  mkdtemp,
  open,
  readdir,
  readFile,
  realpath,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WharfOrchestratorError } from '@wharf/swarm';
import type { ToolSet } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BuiltinToolContext, builtinTools } from './builtin-tools.js';
import type { ToolOutput } from './tool-output.js';

// The shapes an attacker or a wedged peer gives the file and HTTP tools: directories swapped for
// links by a concurrent process, hard links and FIFOs in the work directory, files far larger
// than memory, and servers that never finish a response.

type Outcome = { value: unknown } | { error: unknown };

async function call(tools: ToolSet, name: string, input: unknown): Promise<Outcome> {
  const execute = tools[name]?.execute as (input: unknown, options: unknown) => Promise<unknown>;
  return execute(input, { toolCallId: 't', messages: [] }).then(
    (value) => ({ value }),
    (error: unknown) => ({ error }),
  );
}

function textOf(outcome: Outcome): string {
  if ('error' in outcome) return `error: ${(outcome.error as Error).message}`;
  const { value } = outcome;
  return typeof value === 'string' ? value : (value as ToolOutput).text;
}

/** `limit` calls at a time, `count` in all. */
async function inParallel<TResult>(count: number, limit: number, run: (index: number) => Promise<TResult>) {
  const results: TResult[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: limit }, async () => {
      while (next < count) {
        const index = next++;
        results[index] = await run(index);
      }
    }),
  );
  return results;
}

/** A process that swaps `a` and `b` (directory and link) until killed. */
function startSwapper(kind: 'exchange' | 'renames', a: string, b: string): ChildProcess {
  const child =
    kind === 'exchange'
      ? // renameat2(RENAME_EXCHANGE): both names always exist; one is the directory, the other the link.
        spawn(
          'python3',
          [
            '-c',
            'import ctypes,sys\nlibc=ctypes.CDLL(None,use_errno=True)\na=sys.argv[1].encode();b=sys.argv[2].encode()\nwhile True:\n  libc.renameat2(-100,a,-100,b,2)',
            a,
            b,
          ],
          { stdio: 'ignore' },
        )
      : // Plain renames: the directory leaves, the link takes its name, then both go back.
        spawn(
          process.execPath,
          [
            '-e',
            'const fs=require("fs");const[a,b]=process.argv.slice(1);for(;;){try{fs.renameSync(a,a+".away");fs.renameSync(b,a);fs.renameSync(a,b);fs.renameSync(a+".away",a)}catch{}}',
            a,
            b,
          ],
          { stdio: 'ignore' },
        );
  return child;
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await exited;
}

function hasPython(): boolean {
  try {
    execFileSync('python3', ['-c', 'import ctypes; ctypes.CDLL(None).renameat2'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('built-in file and HTTP tools under attack', () => {
  let dir: string;
  let work: string;
  let outside: string;
  let context: BuiltinToolContext;
  let controller: AbortController;
  beforeEach(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'wharf-probes-')));
    work = join(dir, 'work');
    outside = join(dir, 'outside');
    await mkdir(join(work, 'd'), { recursive: true });
    await mkdir(outside);
    await writeFile(join(work, 'd', 'f.txt'), 'INSIDE');
    await writeFile(join(outside, 'f.txt'), 'OUTSIDE');
    controller = new AbortController();
    context = {
      workdir: work,
      limits: {},
      budgetBytes: 2_000,
      spillDir: join(dir, 'spill'),
      env: { PATH: process.env.PATH },
      signal: controller.signal,
    };
  });
  afterEach(async () => {
    controller.abort();
    await rm(dir, { recursive: true, force: true });
  });

  describe.each([
    { kind: 'exchange' as const, runs: hasPython() },
    { kind: 'renames' as const, runs: true },
  ])('while another process swaps a folder and a link to outside ($kind)', ({ kind, runs }) => {
    it.runIf(runs)('reads never return outside content and writes never land outside', async () => {
      await symlink(outside, join(work, 's'));
      const tools = builtinTools(context);
      const swapper = startSwapper(kind, join(work, 'd'), join(work, 's'));
      try {
        const reads = await inParallel(4_000, 8, () => call(tools, 'read_file', { path: 'd/f.txt' }));
        const writes = await inParallel(4_000, 8, (index) =>
          call(tools, 'write_file', { path: `d/new-${index}.txt`, content: 'from the agent' }),
        );
        const texts = reads.map(textOf);
        const leaked = texts.filter((text) => text.includes('OUTSIDE'));
        expect(leaked).toEqual([]);
        // The race was live: some reads went through, some met the link and were refused.
        expect(texts.filter((text) => text.endsWith('\nINSIDE')).length).toBeGreaterThan(0);
        expect(texts.filter((text) => text.startsWith('error:')).length).toBeGreaterThan(0);
        expect(writes.filter((outcome) => 'value' in outcome).length).toBeGreaterThan(0);
        // Every refusal is one of the tools' typed errors naming the path and why, never a raw
        // system error of the race (EINVAL, ENOENT from a name that changed mid-call).
        const untyped = [...reads, ...writes].flatMap((outcome, index) => {
          if (!('error' in outcome)) return [];
          const error = outcome.error as { code?: unknown; message?: unknown };
          const path = index < reads.length ? 'd/f.txt' : `d/new-${index - reads.length}.txt`;
          const typed =
            WharfOrchestratorError.isInstance(error) &&
            ['FILE_NOT_FOUND', 'NOT_A_REGULAR_FILE', 'PATH_OUTSIDE_WORKDIR'].includes(String(error.code)) &&
            String(error.message).startsWith(`${path}: `);
          return typed ? [] : [`${String(error.code)}: ${String(error.message)}`];
        });

        expect(untyped).toEqual([]);
      } finally {
        await stop(swapper);
      }
      expect(await readdir(outside)).toEqual(['f.txt']);
      expect(await readFile(join(outside, 'f.txt'), 'utf8')).toBe('OUTSIDE');
    });
  });

  it('a hard link to an outside file is neither read nor written through', async () => {
    await link(join(outside, 'f.txt'), join(work, 'hard.txt'));
    const tools = builtinTools(context);
    const read = await call(tools, 'read_file', { path: 'hard.txt' });
    expect(textOf(read)).not.toContain('OUTSIDE');
    expect(read).toMatchObject({ error: { code: 'PATH_OUTSIDE_WORKDIR' } });
    for (const append of [true, false]) {
      const written = await call(tools, 'write_file', { path: 'hard.txt', content: 'tampered', append });
      expect(written).toMatchObject({ error: { code: 'PATH_OUTSIDE_WORKDIR' } });
    }
    expect(await readFile(join(outside, 'f.txt'), 'utf8')).toBe('OUTSIDE');
  });

  it('FIFOs are refused at once and leave the file thread pool free', async () => {
    // More FIFOs than libuv's 4 threads: one blocking open each would wedge every file read.
    const fifos = Array.from({ length: 6 }, (_, index) => join(work, `pipe-${index}`));
    for (const fifo of fifos) execFileSync('mkfifo', [fifo]);
    const tools = builtinTools(context);
    const calls = [
      ...fifos.map((_, index) => call(tools, 'read_file', { path: `pipe-${index}` })),
      ...fifos
        .slice(0, 2)
        .map((_, index) => call(tools, 'write_file', { path: `pipe-${index}`, content: 'x' })),
    ];
    try {
      const deadline = (ms: number, verdict: string) =>
        new Promise<string>((resolve) => setTimeout(() => resolve(verdict), ms).unref());
      const settled = await Promise.race([
        Promise.all(calls).then(() => 'calls ended'),
        deadline(10_000, 'calls still waiting on FIFOs'),
      ]);
      const unrelated = await Promise.race([
        readFile(join(work, 'd', 'f.txt'), 'utf8').then((text) => `read ${text}`),
        deadline(5_000, 'file reads blocked'),
      ]);
      expect({ settled, unrelated }).toEqual({ settled: 'calls ended', unrelated: 'read INSIDE' });
      for (const outcome of await Promise.all(calls)) {
        expect(outcome).toMatchObject({ error: { code: 'NOT_A_REGULAR_FILE' } });
      }
    } finally {
      // Release whatever still waits on a FIFO, until every call has ended: a writer ends a
      // reader's wait and a reader a writer's. From other processes, as this one's file threads
      // may all be stuck (and a queued call may block on the next FIFO once they are freed).
      let ended = false;
      const all = Promise.all(calls).then(() => {
        ended = true;
      });
      while (!ended) {
        const release = spawn(
          'sh',
          [
            '-c',
            'for f; do timeout 2 sh -c \': > "$1"\' _ "$f" & timeout 2 cat "$f" >/dev/null & done; wait',
            '_',
            ...fifos,
          ],
          { stdio: 'ignore' },
        );
        await new Promise((resolve) => release.once('exit', resolve));
      }
      await all;
    }
  });

  it('reads a range of a sparse file larger than memory allows, reading only that range', async () => {
    const tools = builtinTools(context);
    for (const size of [1_600_000_000, 3 * 2 ** 30]) {
      const path = join(work, `sparse-${size}.bin`);
      const handle = await open(path, 'w');
      await handle.truncate(size);
      await handle.write(Buffer.from('NEEDLE'), 0, 6, size - 100);
      await handle.close();
      const before = process.memoryUsage().rss;
      const outcome = await call(tools, 'read_file', {
        path: `sparse-${size}.bin`,
        offset: size - 100,
        length: 6,
      });
      const grown = process.memoryUsage().rss - before;
      expect(textOf(outcome)).toBe(`sparse-${size}.bin bytes ${size - 100}-${size - 94} of ${size}:\nNEEDLE`);
      expect(grown).toBeLessThan(64 * 2 ** 20);
      // A read with no length is still cut at the budget.
      const head = await call(tools, 'read_file', { path: `sparse-${size}.bin` });
      expect(textOf(head).startsWith(`sparse-${size}.bin bytes 0-2000 of ${size}:\n`)).toBe(true);
      await rm(path);
    }
  });

  describe('http_request against a server that never finishes', () => {
    let server: Server;
    let base: string;
    beforeEach(async () => {
      server = createServer((request, response) => {
        if (request.url === '/silent') return; // never answers
        response.writeHead(200, { 'content-type': 'text/plain' });
        response.write('partial body'); // and never ends
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    afterEach(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });

    /** The call's outcome, or 'still pending' if it outlives the guard (the abort then ends it). */
    async function guarded(tools: ToolSet, input: unknown): Promise<Outcome | 'still pending'> {
      const outcome = call(tools, 'http_request', input);
      const verdict = await Promise.race([
        outcome,
        new Promise<'still pending'>((resolve) => setTimeout(() => resolve('still pending'), 10_000).unref()),
      ]);
      controller.abort();
      await outcome;
      return verdict;
    }

    it('a body that never ends fails the call at timeout_ms, with what arrived and a marker', async () => {
      const outcome = await guarded(builtinTools(context), { url: `${base}/stream`, timeout_ms: 300 });
      expect(outcome).toMatchObject({ value: { failed: true } });
      const text = textOf(outcome as Outcome);
      expect(text).toMatch(/^HTTP 200 OK\n/);
      expect(text).toContain(
        '\n\npartial body\n--- [timed out after 300 ms reading the body: 12 bytes read, the rest was not] ---',
      );
    });

    it("headers that never come fail the call at the task's limits.timeout_ms", async () => {
      const tools = builtinTools({ ...context, limits: { timeout_ms: 300 } });
      const outcome = await guarded(tools, { url: `${base}/silent` });
      expect(outcome).toMatchObject({ value: { failed: true } });
      expect(textOf(outcome as Outcome)).toBe(
        `GET ${base}/silent: timed out after 300 ms waiting for the response headers`,
      );
    });
  });
});
