import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { runWharf as wharf } from './wharf-cli.js';

describe('wharf gc', () => {
  let dir: string;
  let address: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-cli-gc-'));
    address = inject('temporalAddress');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('previews with --dry-run, then removes a run’s outputs and evidence and prints each', async () => {
    await writeFile(
      join(dir, 'swarm.yaml'),
      "name: gc-swarm\ntasks:\n  a: { script: { content: 'echo first' } }\n  b: { script: { content: 'echo second; echo warn >&2' } }\n",
    );
    const run = await wharf(
      ['run', 'swarm.yaml', '--json', '--address', address, '--data-dir', '.wharf'],
      dir,
    );
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as { workflowId: string; outputs: Record<string, string[]> };
    const outIds = [...(result.outputs.a ?? []), ...(result.outputs.b ?? [])];
    expect(outIds).toHaveLength(3);

    // Nothing is old enough: nothing goes.
    const none = await wharf(['gc', '--older-than', '7d', '--data-dir', '.wharf'], dir);
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toContain('Removed 0 output(s), 0 B; kept 3 output(s)');

    const preview = await wharf(['gc', '--max-bytes', '0', '--dry-run', '--data-dir', '.wharf'], dir);
    expect(preview.code, preview.stderr).toBe(0);
    for (const outId of outIds)
      expect(preview.stdout).toMatch(new RegExp(`would remove ${outId} .* evicted`));
    expect(preview.stdout).toContain(`would remove the evidence of run ${result.workflowId}`);
    expect(preview.stdout).toContain('Would remove 3 output(s)');
    const listed = await wharf(['outputs', 'list', '--json', '--data-dir', '.wharf'], dir);
    expect(JSON.parse(listed.stdout)).toHaveLength(3);

    const removed = await wharf(['gc', '--run', result.workflowId, '--json', '--data-dir', '.wharf'], dir);
    expect(removed.code, removed.stderr).toBe(0);
    const report = JSON.parse(removed.stdout) as {
      dryRun: boolean;
      outputs: { outId: string; reason: string }[];
      runs: { runId: string; workers: number }[];
    };
    expect(report.dryRun).toBe(false);
    expect(report.outputs.map((output) => output.outId).sort()).toEqual([...outIds].sort());
    expect(report.outputs.every((output) => output.reason === 'deleted')).toBe(true);
    expect(report.runs).toEqual([expect.objectContaining({ runId: result.workflowId, workers: 2 })]);
    expect((await wharf(['outputs', 'list', '--data-dir', '.wharf'], dir)).stdout).toContain('No outputs.');
    expect((await wharf(['outputs', 'show', outIds[0] as string, '--data-dir', '.wharf'], dir)).code).toBe(3);
    const evidence = await wharf(['evidence', result.workflowId, '--data-dir', '.wharf'], dir);
    expect(evidence.stdout).not.toContain('first');
  });

  it('refuses a malformed policy flag with a usage error (exit 2)', async () => {
    const bad = await wharf(['gc', '--older-than', 'soon', '--data-dir', '.wharf'], dir);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--older-than must be a duration');
  });
});
