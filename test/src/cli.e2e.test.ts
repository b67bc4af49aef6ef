import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { WharfClient } from '@wharf/orchestrator/client';
import { openDataDir } from '@wharf/orchestrator/embedded';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectTestEnv, taskQueueFor } from './temporal-env.js';

const execFileAsync = promisify(execFile);
const cli = fileURLToPath(new URL('../../apps/cli/dist/main.js', import.meta.url));

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

async function wharf(args: string[], cwd: string): Promise<CliRun> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, [cli, ...args], {
      cwd,
      timeout: 120_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

describe('the wharf command', () => {
  let dir: string;
  let address: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-cli-'));
    address = inject('temporalAddress');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('validate reports problems with line, column and field path (exit 2)', async () => {
    await writeFile(
      join(dir, 'bad.yaml'),
      'name: bad\ntasks:\n  a:\n    script: { content: echo }\n    depends_on: [ghost]\n',
    );
    const run = await wharf(['validate', 'bad.yaml'], dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('5:18 tasks.a.depends_on[0]: unknown task "ghost" (defined: a)');
    await writeFile(join(dir, 'good.yaml'), 'name: good\ntasks:\n  a: { script: { content: echo ok } }\n');
    expect((await wharf(['validate', 'good.yaml'], dir)).stdout).toContain('good.yaml: ok');
  });

  it('runs a swarm whose script EMITs through `wharf emit`, then reads outputs and evidence', async () => {
    const swarm = [
      'name: cli-swarm',
      'tasks:',
      '  produce:',
      `    script: { content: 'echo "note from a subagent" | ${process.execPath} ${cli} emit --name note.txt --label kind=note; echo main output' }`,
      '  broken:',
      '    script: { content: \'echo "cannot connect" >&2; exit 4\' }',
    ].join('\n');
    await writeFile(join(dir, 'swarm.yaml'), swarm);
    const run = await wharf(
      ['run', 'swarm.yaml', '--json', '--address', address, '--data-dir', '.wharf'],
      dir,
    );
    expect(run.code).toBe(1); // the swarm ran; one task failed
    const result = JSON.parse(run.stdout) as {
      status: string;
      workflowId: string;
      outputs: Record<string, string[]>;
    };
    expect(result.status).toBe('failed');

    // The commands below only read, and each costs seconds before it does: side by side.
    const mainOut = result.outputs.produce?.[0] as string;
    const [status, statusJson, body, missing] = await Promise.all([
      wharf(['status', result.workflowId, '--address', address], dir),
      wharf(['status', result.workflowId, '--json', '--address', address], dir),
      wharf(['outputs', 'show', mainOut, '--data-dir', '.wharf'], dir),
      wharf(['outputs', 'show', 'out_doesnotexist00', '--data-dir', '.wharf'], dir),
    ]);
    // The run ended failed and no worker runs any more: status reads the result from Temporal.
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain('cli-swarm: failed (run failed)');
    expect(status.stdout).toMatch(/broken\s+failed.*cannot connect/);
    expect(JSON.parse(statusJson.stdout)).toMatchObject({ swarm: 'cli-swarm', status: 'failed' });

    const emittedId = body.stdout.split('\n')[0] as string;
    expect(emittedId).toMatch(/^out_/);
    expect(body.stdout).toContain('main output');

    const [emitted, shownRecord, evidence] = await Promise.all([
      wharf(['outputs', 'show', emittedId, '--range', '0-4', '--data-dir', '.wharf'], dir),
      wharf(['outputs', 'show', emittedId, '--json', '--data-dir', '.wharf'], dir),
      wharf(['evidence', result.workflowId, '--budget', '2000', '--data-dir', '.wharf'], dir),
    ]);
    expect(emitted.stdout).toBe('note');
    const record = JSON.parse(shownRecord.stdout) as {
      name: string;
      labels: Record<string, string>;
      producer: { spawnId: string };
    };
    expect(record).toMatchObject({
      name: 'note.txt',
      labels: { kind: 'note' },
      producer: { spawnId: 'produce' },
    });

    expect(evidence.code).toBe(0);
    expect(evidence.stdout).toContain('cannot connect');
    expect(evidence.stdout.indexOf('Worker broken')).toBeLessThan(evidence.stdout.indexOf('Worker produce'));

    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('out_doesnotexist00');
  });

  it('run --workdir runs scripts in that directory, with a script cwd relative to it', async () => {
    await mkdir(join(dir, 'checkout', 'docs'), { recursive: true });
    await writeFile(join(dir, 'checkout', 'marker.txt'), 'the checkout\n');
    await writeFile(join(dir, 'checkout', 'docs', 'marker.txt'), 'the docs\n');
    await writeFile(
      join(dir, 'workdir.yaml'),
      [
        'name: workdir',
        'tasks:',
        '  root: { script: { content: cat marker.txt } }',
        '  docs: { script: { content: cat marker.txt, cwd: docs } }',
        // Its context file lives under the (relative) data dir, yet the script finds it from docs/.
        '  after: { depends_on: [root], script: { content: \'head -n 3 "$WHARF_CONTEXT_FILE"\', cwd: docs } }',
      ].join('\n'),
    );
    const args = ['run', 'workdir.yaml', '--json', '--address', address, '--data-dir', '.wharf'];
    const run = await wharf([...args, '--workdir', 'checkout'], dir);
    expect(run.code, run.stderr).toBe(0);
    const result = JSON.parse(run.stdout) as { status: string; outputs: Record<string, string[]> };
    expect(result.status).toBe('completed');
    // The outputs, read from the data directory here (the test above runs `outputs show`).
    const data = await openDataDir(join(dir, '.wharf'), { env: {} });
    const show = async (outId: string) =>
      Buffer.from((await data.store.get({ outId })).body).toString('utf8');
    try {
      expect(await show(result.outputs.root?.[0] as string)).toBe('the checkout\n');
      expect(await show(result.outputs.docs?.[0] as string)).toBe('the docs\n');
      expect(await show(result.outputs.after?.[0] as string)).toBe(
        '=== RELEVANT CONTEXT ===\n\nTask: root (relevance: 1.00)\n',
      );
    } finally {
      await data.close();
    }

    // Without --workdir the scripts run where `wharf run` was started, which has no marker.
    const elsewhere = await wharf(
      args.filter((arg) => arg !== '--json'),
      dir,
    );
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stdout).toContain('Swarm workdir: failed');
    expect(elsewhere.stdout).toMatch(/Captured .+ across 3 tasks, 3 not done/);
    expect(elsewhere.stdout).toMatch(/Context pool: 1 output, 0 B, 0 shown cut, never pruned/);
  });

  it('run refuses a swarm whose model cannot be built here, before starting anything (exit 2)', async () => {
    await writeFile(
      join(dir, 'needs-key.yaml'),
      'name: k\nagents:\n  a: { model: "anthropic:claude-x" }\ntasks:\n  t: { agent: a, prompt: hi }\n',
    );
    const run = await wharf(['run', 'needs-key.yaml', '--address', address, '--data-dir', '.wharf'], dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('agents.a.model: model "anthropic:claude-x" needs ANTHROPIC_API_KEY');
  });

  it('emit outside a subagent explains what is missing', async () => {
    const run = await wharf(['emit'], dir);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/WHARF_OUTPUT_URL|WHARF_OUTPUT_TOKEN/);
  });

  it('status of a running swarm no worker answers for: at once, from its memo (--json: exits 5, the memo in its message, no text on stdout); terminated, it reads as ended', async () => {
    const temporal = await connectTestEnv();
    try {
      const taskQueue = taskQueueFor('status with no worker');
      const client = new WharfClient({ connection: temporal.client.connection, taskQueue });
      const { workflowId, handle } = await client.startSwarm(
        'name: unserved\ntasks:\n  a: { script: { content: echo never } }\n',
      );
      try {
        const run = await wharf(['status', workflowId, '--json', '--address', address], dir);
        expect(run.code).toBe(5);
        expect(run.stdout).toBe('');
        expect(run.stderr).toContain('no worker answers for it');
        // It answers at once from the memo: no query left waiting for a worker that never comes.
        // What every status costs (node, the CLI's modules, a connection, a describe) is timed
        // on a run that does not exist; the run no worker serves may add under 2 s to it.
        let started = Date.now();
        expect((await wharf(['status', 'no-such-run', '--address', address], dir)).code).toBe(3);
        const base = Date.now() - started;
        started = Date.now();
        const text = await wharf(['status', workflowId, '--address', address], dir);
        const took = Date.now() - started;
        console.log(
          `wharf status of a run no worker serves: ${took} ms, of which ${took - base} ms beyond a status of no run (${base} ms)`,
        );
        expect(text.code, text.stderr).toBe(0);
        expect(text.stdout).toContain(
          `unserved: running · 0 waiting for approval (no worker answers for it: \`wharf resume ${workflowId}\` gives it one)`,
        );
        // About 1 s beyond on a quiet machine (printed above); the bound is one a loaded CI run
        // cannot reach while the old 30 s wait for a worker would still fail it.
        expect(took - base).toBeLessThan(12_000);
      } finally {
        await handle.terminate('test done');
      }
      // A terminated run reads like a finished one: no query waits.
      const terminated = await wharf(['status', workflowId, '--address', address], dir);
      expect(terminated.code, terminated.stderr).toBe(0);
      expect(terminated.stdout).toContain('unserved: terminated (it ended without a swarm result)');
      const json = await wharf(['status', workflowId, '--json', '--address', address], dir);
      expect(JSON.parse(json.stdout)).toMatchObject({ workflowId, status: 'terminated', result: null });
    } finally {
      await temporal.close();
    }
  });
});
