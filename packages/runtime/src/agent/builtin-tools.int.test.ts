import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ToolSet } from 'ai';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BuiltinToolContext, builtinTools } from './builtin-tools.js';
import { isToolOutput, type ToolOutput } from './tool-output.js';

async function call(tools: ToolSet, name: string, input: unknown): Promise<unknown> {
  const execute = tools[name]?.execute as (input: unknown, options: unknown) => Promise<unknown>;
  return execute(input, { toolCallId: 't', messages: [] });
}

/** Whether a process runs (a zombie waiting for its parent to reap it counts as gone). */
function processRuns(pid: number): boolean {
  try {
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.startsWith('Z');
  } catch {
    return false;
  }
}

describe('built-in tools', () => {
  let dir: string;
  let context: BuiltinToolContext;
  let controller: AbortController;
  beforeEach(async () => {
    dir = await realpath(await mkdtemp(join(tmpdir(), 'wharf-builtin-')));
    await mkdir(join(dir, 'work'));
    controller = new AbortController();
    context = {
      workdir: join(dir, 'work'),
      limits: {},
      budgetBytes: 2_000,
      spillDir: join(dir, 'spill'),
      env: { PATH: process.env.PATH },
      signal: controller.signal,
    };
  });
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('shell: cuts what the model sees under the budget with exact markers and keeps the whole output', async () => {
    const output = (await call(builtinTools(context), 'shell', {
      command: 'seq 1 20000; echo warn >&2; exit 3',
    })) as ToolOutput;
    expect(isToolOutput(output)).toBe(true);
    expect(output).toMatchObject({ exitCode: 3, failed: true });
    expect(output.text.startsWith('exit 3\n--- stdout ---\n--- [')).toBe(true);
    expect(output.text).toContain('--- stderr ---\nwarn\n');
    expect(Buffer.byteLength(output.text)).toBeLessThanOrEqual(2_000);
    const seq = Array.from({ length: 20_000 }, (_, index) => `${index + 1}\n`).join('');
    const cut = /--- \[(\d+) bytes truncated\] ---/.exec(output.text);
    const shown = /showing last (\d+) bytes of (\d+)/.exec(output.text);
    expect(Number(cut?.[1]) + Number(shown?.[1])).toBe(Buffer.byteLength(seq));
    expect(output.full).toMatchObject({ bytes: Buffer.byteLength(seq) + 5 });
    const file = (output.full as { filePath: string }).filePath;
    expect(await readFile(file, 'utf8')).toBe(`${seq}warn\n`);
  });

  it('shell: runs in the work directory and kills its process group when cancelled', async () => {
    const tools = builtinTools(context);
    expect(((await call(tools, 'shell', { command: 'pwd' })) as ToolOutput).text).toBe(
      `exit 0\n--- stdout ---\n${join(dir, 'work')}\n`,
    );
    const started = Date.now();
    const running = call(tools, 'shell', { command: `sleep 30 & echo $! > ${join(dir, 'child.pid')}; wait` });
    setTimeout(() => controller.abort(), 500);
    const output = (await running) as ToolOutput;
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(output.failed).toBe(true);
    // The group was signalled; the orphaned `sleep` may linger as a zombie until its new parent
    // reaps it, and under load it may take a moment to act on the signal.
    const pid = Number(await readFile(join(dir, 'child.pid'), 'utf8'));
    const deadline = Date.now() + 5_000;
    while (processRuns(pid) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(processRuns(pid)).toBe(false);
  });

  it('read_file and write_file stay in the work directory', async () => {
    const tools = builtinTools(context);
    expect(await call(tools, 'write_file', { path: 'a/b.txt', content: 'héllo' })).toBe(
      'wrote 6 bytes to a/b.txt',
    );
    await call(tools, 'write_file', { path: 'a/b.txt', content: '!', append: true });
    const read = (await call(tools, 'read_file', { path: 'a/b.txt' })) as ToolOutput;
    expect(read.text).toBe('a/b.txt bytes 0-7 of 7:\nhéllo!');
    const range = (await call(tools, 'read_file', { path: 'a/b.txt', offset: 3, length: 3 })) as ToolOutput;
    expect(range.text).toBe('a/b.txt bytes 3-6 of 7:\nllo');
    await expect(call(tools, 'write_file', { path: '../escape.txt', content: 'x' })).rejects.toMatchObject({
      code: 'PATH_OUTSIDE_WORKDIR',
    });
    await expect(call(tools, 'read_file', { path: '/etc/hostname' })).rejects.toMatchObject({
      code: 'PATH_OUTSIDE_WORKDIR',
    });
  });

  it('http_request: status, headers and body from a real server; a failed status is a failed call', async () => {
    const server = createServer((request, response) => {
      response.statusCode = request.url === '/missing' ? 404 : 200;
      let body = '';
      request.on('data', (chunk) => {
        body += String(chunk);
      });
      request.on('end', () => response.end(`${request.method} ${request.url} ${body}`));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const tools = builtinTools(context);
      const posted = (await call(tools, 'http_request', {
        url: `${base}/items`,
        method: 'POST',
        body: 'x=1',
      })) as ToolOutput;
      expect(posted.text).toMatch(/^HTTP 200 OK\n/);
      expect(posted.text.endsWith('\n\nPOST /items x=1')).toBe(true);
      expect(posted.failed).toBe(false);
      const missing = (await call(tools, 'http_request', { url: `${base}/missing` })) as ToolOutput;
      expect(missing.text).toMatch(/^HTTP 404 Not Found\n/);
      expect(missing.failed).toBe(true);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
