import { execFile } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, inject, it } from 'vitest';

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
  // The examples' README runs from a directory holding a copy of examples/, as from a checkout;
  // every ts block of it runs (one per example).
  const examples = await readFile(join(root, 'examples', 'README.md'), 'utf8');
  [...examples.matchAll(/```ts\n([\s\S]*?)```/g)].forEach((match, index) => {
    found.push({ name: `examples/README${index === 0 ? '' : `#${index + 1}`}`, code: match[1] ?? '' });
  });
  return found;
}

const examples = await readmes();

// Each example is a process of its own in a directory of its own: they run side by side.
describe.concurrent('README examples run as written', () => {
  afterAll(async () => {
    await rm(scriptsDir, { recursive: true, force: true });
  });

  it('finds an example in every package README', ({ expect }) => {
    expect(examples.map((example) => example.name)).toEqual(
      expect.arrayContaining([
        'packages/common',
        'packages/channels',
        'packages/context-resolver',
        'packages/output-store',
        'packages/stdio-limits',
        'packages/evidence',
        'packages/orchestrator',
        'examples/README',
        'examples/README#2',
      ]),
    );
  });

  it.for(examples)('$name', async ({ name, code }, { expect }) => {
    await mkdir(scriptsDir, { recursive: true });
    const script = join(scriptsDir, `${name.replace('/', '-').replace('#', '-')}.mts`);
    await writeFile(script, code.replaceAll('127.0.0.1:7233', inject('temporalAddress')));
    const cwd = await mkdtemp(join(tmpdir(), 'wharf-readme-'));
    if (name.startsWith('examples/README'))
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
      if (name === 'examples/README#2') {
        // What the reviewer's model was sent back from its tools, then how the run ended.
        expect(stdout).toMatch(
          /^yaml: shell found \.\/examples\/README\.md, \.\/examples\/dependency-review\.yaml/m,
        );
        expect(stdout).toMatch(/^@temporalio\/client: shell found \.\/examples\/README\.md/m);
        expect(stdout).toMatch(
          /^yaml: read_file sent \.\/examples\/README\.md bytes 0-\d+ of \d+: # Examples$/m,
        );
        expect(stdout).toContain('upgrade waits: Every review says SAFE. Upgrade the dependencies?');
        expect(stdout).toContain('review ×2: done · 8 model calls');
        expect(stdout).toContain('upgrade: done');
        expect(stdout).toContain('hold: skipped (when: †data.risky.preview > 0 is false)');
      }
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });
});
