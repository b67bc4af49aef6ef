import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// Real `wharf` processes (apps/cli/dist, so `pnpm build` first); none of these needs a server.
const execFileAsync = promisify(execFile);
const cli = fileURLToPath(new URL('../../apps/cli/dist/main.js', import.meta.url));

async function wharf(args: string[], cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [cli, ...args], {
      cwd,
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('wharf usage errors exit 2 with what is wrong', { timeout: 120_000 }, () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-usage-'));
    await writeFile(join(dir, 'ok.yaml'), 'name: ok\ntasks:\n  a: { script: { content: echo } }\n');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('validate refuses a YAML alias bomb at the alias line:column', async () => {
    const bomb = ['name: bomb', 'a: &a [x, x, x, x, x, x, x, x, x, x]'];
    for (const [name, previous] of [
      ['b', 'a'],
      ['c', 'b'],
      ['d', 'c'],
      ['e', 'd'],
      ['f', 'e'],
    ]) {
      bomb.push(`${name}: &${name} [${Array(10).fill(`*${previous}`).join(', ')}]`);
    }
    bomb.push('tasks:', '  a: { script: { content: echo } }');
    await writeFile(join(dir, 'bomb.yaml'), `${bomb.join('\n')}\n`);
    const run = await wharf(['validate', 'bomb.yaml'], dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/Invalid swarm definition in bomb\.yaml/);
    expect(run.stderr).toMatch(/ 5:\d+ YAML: aliases expand to more than 10000 nodes \(maxAliasNodes\)/);
    expect(run.stderr).not.toContain('unexpected error');
  });

  it('validate refuses a FIFO at once instead of waiting for a writer', async () => {
    await execFileAsync('mkfifo', [join(dir, 'pipe.yaml')]);
    const started = Date.now();
    const run = await wharf(['validate', 'pipe.yaml'], dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('wharf: pipe.yaml is not a regular file (a FIFO)');
    // Not a speed target: a blocked open would only end at the helper's 60 s timeout.
    expect(Date.now() - started).toBeLessThan(30_000);
    const directory = await wharf(['validate', '.'], dir);
    expect(directory.code).toBe(2);
    expect(directory.stderr).toContain('wharf: . is not a regular file (a directory)');
  });

  it('validate refuses deeply nested YAML as a definition problem at its line:column', async () => {
    const task = 'name: deep\ntasks:\n  a:\n    script: { content: echo }\n';
    const depth = 100_000;
    await writeFile(join(dir, 'deep.yaml'), `${task}    env: ${'['.repeat(depth)}${']'.repeat(depth)}\n`);
    const flow = await wharf(['validate', 'deep.yaml'], dir);
    expect(flow.code).toBe(2);
    expect(flow.stderr).toContain('Invalid swarm definition in deep.yaml (1 problem)');
    // The root, tasks' and a's mappings are three levels: the 62nd bracket is the 65th.
    expect(flow.stderr).toContain(
      '5:71 YAML: collections nested more than 64 deep (maxDepth), here at depth 65',
    );
    const lines = Array.from({ length: 1_400 }, (_, level) => `${' '.repeat(6 + level)}k:`);
    await writeFile(join(dir, 'deep-block.yaml'), `${task}    meta:\n${lines.join('\n')} v\n`);
    const block = await wharf(['validate', 'deep-block.yaml'], dir);
    expect(block.code).toBe(2);
    expect(block.stderr).toMatch(/ 67:\d+ YAML: collections nested more than 64 deep \(maxDepth\)/);
    for (const run of [flow, block]) expect(run.stderr).not.toMatch(/call stack|unexpected error/i);
  });

  it('validate reports schema and graph problems of one file together', async () => {
    await writeFile(
      join(dir, 'mixed.yaml'),
      'name: mixed\ntasks:\n  a:\n    script: { content: echo }\n    loop: { type: repeat, count: 0 }\n    depends_on: [bulid]\n  build: { script: { content: echo } }\n',
    );
    const run = await wharf(['validate', 'mixed.yaml'], dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('(2 problems)');
    expect(run.stderr).toMatch(/5:\d+ tasks\.a\.loop\.count: /);
    expect(run.stderr).toMatch(
      /6:\d+ tasks\.a\.depends_on\[0\]: unknown task "bulid" \(did you mean "build"\?\)/,
    );
  });

  it('validate refuses a file over the size limit', async () => {
    await writeFile(
      join(dir, 'huge.yaml'),
      `name: huge\ntasks:\n  a: { script: { content: echo } }\n#${'x'.repeat(4 * 1024 * 1024)}\n`,
    );
    const run = await wharf(['validate', 'huge.yaml'], dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /huge\.yaml is too large: \d+ bytes, more than the limit of 4194304 \(maxBytes\)/,
    );
  });

  it('outputs list --limit abc names the option', async () => {
    const run = await wharf(['outputs', 'list', '--limit', 'abc', '--data-dir', join(dir, 'data')], dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--limit must be an integer from 1 to 1000, got "abc".');
  });

  it('evidence --budget -1 names the option', async () => {
    const run = await wharf(['evidence', 'some-run', '--budget', '-1', '--data-dir', join(dir, 'data')], dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--budget must be an integer of at least 0, got "-1".');
  });

  it('a --data-dir that cannot be created is a usage error naming the path', async () => {
    for (const args of [
      ['outputs', 'list'],
      ['evidence', 'some-run'],
      ['run', 'ok.yaml'],
    ]) {
      const run = await wharf([...args, '--data-dir', '/dev/null/x'], dir);
      expect(run.code, args.join(' ')).toBe(2);
      expect(run.stderr).toContain('wharf: --data-dir /dev/null/x: cannot create this directory (ENOTDIR)');
    }
  });
});
