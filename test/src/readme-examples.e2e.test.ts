import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, inject, it } from 'vitest';

const execFileAsync = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
// Scripts live inside test/ so that `@wharf/*` imports resolve like a user's would.
const scriptsDir = join(root, 'test', '.readme-examples');

async function readmes(): Promise<{ name: string; code: string }[]> {
  const found: { name: string; code: string }[] = [];
  for (const group of ['packages', 'apps']) {
    for (const name of await readdir(join(root, group))) {
      const text = await readFile(join(root, group, name, 'README.md'), 'utf8').catch(() => '');
      const block = /```ts\n([\s\S]*?)```/.exec(text)?.[1];
      if (block !== undefined) found.push({ name: `${group}/${name}`, code: block });
    }
  }
  // The examples' README runs from a directory holding a copy of examples/, as from a checkout.
  const examples = await readFile(join(root, 'examples', 'README.md'), 'utf8');
  const block = /```ts\n([\s\S]*?)```/.exec(examples)?.[1];
  if (block !== undefined) found.push({ name: 'examples/README', code: block });
  return found;
}

const examples = await readmes();

describe('README examples run as written', () => {
  afterAll(async () => {
    await rm(scriptsDir, { recursive: true, force: true });
  });

  it('finds an example in every package README', () => {
    expect(examples.map((example) => example.name)).toEqual(
      expect.arrayContaining([
        'packages/channels',
        'packages/context-resolver',
        'packages/output-store',
        'packages/stdio-limits',
        'packages/evidence',
        'packages/orchestrator',
        'examples/README',
      ]),
    );
  });

  it.each(examples)('$name', async ({ name, code }) => {
    await mkdir(scriptsDir, { recursive: true });
    const script = join(scriptsDir, `${name.replace('/', '-')}.mts`);
    await writeFile(script, code.replaceAll('127.0.0.1:7233', inject('temporalAddress')));
    const cwd = await mkdtemp(join(tmpdir(), 'wharf-readme-'));
    if (name === 'examples/README')
      await cp(join(root, 'examples'), join(cwd, 'examples'), { recursive: true });
    try {
      const { stdout } = await execFileAsync(process.execPath, [script], { cwd, timeout: 120_000 });
      if (name === 'packages/orchestrator') expect(stdout).toContain("status: 'completed'");
      if (name === 'examples/README') {
        expect(stdout).toContain('publish waits: Every changed package passed its tests.');
        expect(stdout).toContain('test ×4: done');
        expect(stdout).toContain('publish: done');
        expect(stdout).toContain('hold: skipped (when: †data.failures.preview > 0 is false)');
      }
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });
});
