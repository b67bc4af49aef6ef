import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runWharf } from './wharf-cli.js';

// What `wharf run` prints, read from the real command (apps/cli/dist: `pnpm build` first)
// against the run's Temporal dev server.
describe('what wharf run prints', () => {
  let dir: string;
  let address: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-cli-run-output-'));
    address = inject('temporalAddress');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reports a failed swarm itself, without the worker logging the failure too', async () => {
    await writeFile(
      join(dir, 'failing.yaml'),
      [
        'name: failing',
        'tasks:',
        '  fine: { script: { content: echo fine } }',
        '  broken: { script: { content: \'echo "cannot connect" >&2; exit 4\' } }',
      ].join('\n'),
    );
    const run = await runWharf(['run', 'failing.yaml', '--address', address, '--data-dir', '.wharf'], dir);
    expect(run.code).toBe(1);
    expect(run.stdout).toMatch(/broken: failed \(exit 4 · cannot connect\)/);
    expect(run.stderr).toContain('wharf: swarm failing failed: 1 task(s) did not complete');
    // No worker log line (`[WARN] Workflow failed {…}`) beside the command's own report.
    expect(run.stderr).not.toContain('Workflow failed');
    expect(run.stderr).not.toContain('[WARN]');
  });
});
