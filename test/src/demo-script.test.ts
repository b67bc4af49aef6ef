import { execFile } from 'node:child_process';
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

// scripts/demo.mjs (`pnpm demo`) with a fake `pnpm` first on PATH: a slow install, then a build
// that fails, so the demo itself never starts.
const root = fileURLToPath(new URL('../../', import.meta.url));
let tools: string;

beforeAll(async () => {
  tools = await mkdtemp(join(tmpdir(), 'wharf-demo-script-'));
  const fake = join(tools, 'pnpm');
  await writeFile(
    fake,
    '#!/bin/sh\nif [ "$1" = install ]; then sleep 1; echo installed; exit 0; fi\necho "build broke" >&2\nexit 3\n',
  );
  await chmod(fake, 0o755);
});
afterAll(async () => {
  await rm(tools, { recursive: true, force: true });
});

describe('pnpm demo (scripts/demo.mjs)', () => {
  it('says what it installs and builds, how long a long step has run, and stops at a failed step with its code', async () => {
    const run = await new Promise<{ code: number | null; stderr: string; stdout: string }>((resolve) => {
      execFile(
        process.execPath,
        ['scripts/demo.mjs'],
        {
          cwd: root,
          env: {
            ...process.env,
            PATH: `${tools}${delimiter}${process.env.PATH ?? ''}`,
            WHARF_DEMO_HEARTBEAT_MS: '300',
          },
        },
        (error, stdout, stderr) =>
          resolve({ code: error === null ? 0 : ((error as { code?: number }).code ?? null), stdout, stderr }),
      );
    });
    expect(run.code).toBe(3);
    expect(run.stdout).toContain('installed');
    const lines = run.stderr.trim().split('\n');
    expect(lines[0]).toBe('wharf demo: installing dependencies (pnpm install)…');
    expect(lines).toContainEqual(
      expect.stringMatching(/^wharf demo: still installing dependencies \(pnpm install\) \(\d+ s\)$/),
    );
    expect(lines).toContainEqual(
      expect.stringMatching(/^wharf demo: installing dependencies \(pnpm install\): done in \d+ s$/),
    );
    expect(lines).toContain('wharf demo: building (pnpm build)…');
    expect(lines).toContain('build broke');
    expect(lines.at(-1)).toMatch(/^wharf demo: building \(pnpm build\) failed \(exit 3\) after \d+ s$/);
  }, 30_000);
});
