import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MissingInputsError } from '@wharf/orchestrator';
import { WharfClient } from '@wharf/orchestrator/client';
import { openDataDir } from '@wharf/orchestrator/embedded';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectTestEnv, type TemporalTestEnv, taskQueueFor } from './temporal-env.js';
import { runWharf, wharfCliPath } from './wharf-cli.js';

// `†input.*` through the real `wharf` command on a real Temporal server: a run that lacks an
// input its tasks read is refused before anything starts, and `wharf input` never replaces a
// value already set unless told to.
describe('wharf run and wharf input with †input values', () => {
  let dir: string;
  let address: string;
  let temporal: TemporalTestEnv;
  const children: ChildProcess[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-inputs-'));
    address = inject('temporalAddress');
    temporal = await connectTestEnv();
    await writeFile(
      join(dir, 'regional.yaml'),
      [
        'name: regional',
        'tasks:',
        '  greet:',
        '    inputs: { region: †input.region }',
        '    script: { content: \'echo "greet $WHARF_INPUTS"\' }',
        '  finish:',
        '    depends_on: [greet]',
        '    inputs: { region: †input.region, done: †input.done }',
        '    script: { content: \'echo "finish $WHARF_INPUTS"\' }',
      ].join('\n'),
    );
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await temporal?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('run refuses a swarm whose †input values are missing, naming them, before starting anything (exit 2)', async () => {
    // Three refusals, none of which reaches a server: side by side (each wharf process costs
    // seconds before it does anything).
    const [refused, offline, one] = await Promise.all([
      runWharf(['run', 'regional.yaml', '--address', address, '--data-dir', '.wharf'], dir),
      // Refused before any server is asked: with none at --address, the answer is the same.
      runWharf(['run', 'regional.yaml', '--address', '127.0.0.1:1', '--data-dir', '.wharf'], dir),
      // One missing: named alone.
      runWharf(
        ['run', 'regional.yaml', '--input', 'region=eu', '--address', address, '--data-dir', '.wharf'],
        dir,
      ),
    ]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('wharf: swarm regional needs inputs it was not given:');
    expect(refused.stderr).toContain(
      '†input.region (read by tasks.greet.inputs.region, tasks.finish.inputs.region)',
    );
    expect(refused.stderr).toContain('†input.done (read by tasks.finish.inputs.done)');
    expect(refused.stderr).toContain('give --input region=… --input done=…, or run with --wait-for-inputs');
    expect(refused.stderr).not.toContain('started');
    expect(offline.code).toBe(2);
    expect(offline.stderr).toContain('†input.region (read by tasks.greet.inputs.region');
    expect(one.code).toBe(2);
    expect(one.stderr).toContain(
      'needs an input it was not given:\n  †input.done (read by tasks.finish.inputs.done)',
    );
    // Given both, the swarm runs.
    const both = await runWharf(
      ['run', 'regional.yaml', '--input', 'region=eu', '--input', 'done=1', '--json', '--address', address],
      dir,
    );
    expect(both.code, both.stderr).toBe(0);
    expect(JSON.parse(both.stdout)).toMatchObject({ status: 'completed' });
  });

  it('WharfClient.startSwarm refuses the same with a MissingInputsError, and starts nothing', async () => {
    const wharf = new WharfClient({
      connection: temporal.client.connection,
      taskQueue: taskQueueFor('inputs'),
    });
    const workflowId = `missing-inputs-${Date.now()}`;
    const error = await wharf
      .startSwarm(
        'name: s\ntasks:\n  t: { inputs: { who: †input.who }, script: { content: echo } }',
        {},
        { workflowId },
      )
      .catch((caught: unknown) => caught);
    expect(MissingInputsError.isInstance(error)).toBe(true);
    expect((error as MissingInputsError).missing).toEqual([
      { reference: '†input.who', readers: ['tasks.t.inputs.who'] },
    ]);
    await expect(temporal.client.workflow.getHandle(workflowId).describe()).rejects.toThrow(/not found/i);
  });

  it('a second `wharf input` to a key already set is refused (exit 2) unless --replace', async () => {
    const child = spawn(
      process.execPath,
      [
        wharfCliPath,
        'run',
        'regional.yaml',
        '--wait-for-inputs',
        '2m',
        '--json',
        '--address',
        address,
        '--data-dir',
        '.wharf',
      ],
      { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const workflowId = await new Promise<string>((resolve, reject) => {
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const match = /wharf: started (\S+)/.exec(stderr);
        if (match?.[1] !== undefined) resolve(match[1]);
      });
      child.once('exit', () => reject(new Error(`wharf run ended early:\n${stderr}`)));
    });
    const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
    const input = (...args: string[]) => runWharf(['input', workflowId, ...args, '--address', address], dir);

    const first = await input('region=eu');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain(`${workflowId}: added †input.region`);
    const again = await input('region=us', 'done=1');
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(
      '†input.region is already set; replace it explicitly (wharf input --replace',
    );
    // Refused whole: done was not added either, so the swarm is still waiting.
    const replaced = await input('region=us', '--replace');
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(replaced.stdout).toContain(`${workflowId}: replaced †input.region`);
    const done = await input('done=1');
    expect(done.code, done.stderr).toBe(0);

    expect(await exited).toBe(0);
    const result = JSON.parse(stdout) as { status: string; outputs: Record<string, string[]> };
    expect(result.status).toBe('completed');
    // Read from the run's data directory here: what `outputs show` would print.
    const data = await openDataDir(join(dir, '.wharf'), { env: {} });
    try {
      const { body } = await data.store.get({ outId: result.outputs.finish?.[0] as string });
      expect(Buffer.from(body).toString('utf8')).toBe('finish {"region":"us","done":1}\n');
    } finally {
      await data.close();
    }
  });
});
