import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SwarmResult } from '@wharf/orchestrator';
import { openDataDir, startEmbedded } from '@wharf/orchestrator/embedded';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { taskQueueFor } from './temporal-env.js';
import { envWithoutModels, runWharf } from './wharf-cli.js';

// A script whose stdout goes over its cap under `truncation_strategy: summary` gets a summary
// written by the configured summarizer, from the command line and in embedded mode (the worker
// app's own path is apps/worker/src/worker-models.int.test.ts).
const swarm = [
  'name: summarize',
  'limits: { max_stdout_bytes: 4096, truncation_strategy: summary }',
  'tasks:',
  '  build: { script: { content: "seq 1 20000" } }',
].join('\n');
const scripted = 'replies:\n  - text: "Counted from 1 to 20000; nothing failed."\n';

describe('the summarizer of truncation_strategy: summary is configurable', () => {
  let dir: string;
  let address: string;
  const env = envWithoutModels();
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-summarizer-'));
    address = inject('temporalAddress');
    await writeFile(join(dir, 'swarm.yaml'), swarm);
    await writeFile(join(dir, 'summary.yaml'), scripted);
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /**
   * The summary output of the `build` task: the body that opens with a summary heading, read
   * from the run's data directory in this process (a `wharf outputs show` each costs seconds).
   */
  async function summaryOf(result: SwarmResult, dataDir: string): Promise<string> {
    const outIds = result.tasks.find((task) => task.task === 'build')?.outIds ?? [];
    const data = await openDataDir(dataDir, { env: {} });
    try {
      for (const outId of outIds) {
        const body = new TextDecoder().decode((await data.store.get({ outId })).body);
        if (body.startsWith('--- ')) return body;
      }
    } finally {
      await data.close();
    }
    throw new Error(`no summary among ${outIds.join(', ')}`);
  }

  async function run(args: string[], dataDir: string, extraEnv: NodeJS.ProcessEnv = {}) {
    const cli = await runWharf(
      ['run', 'swarm.yaml', '--json', '--address', address, '--data-dir', dataDir, ...args],
      dir,
      { env: { ...env, ...extraEnv } },
    );
    expect(cli.code, cli.stderr).toBe(0);
    return summaryOf(JSON.parse(cli.stdout) as SwarmResult, dataDir);
  }

  it('wharf run: --summarizer, WHARF_SUMMARIZER, or the model --model gives every agent', async () => {
    // Four commands on data directories of their own, two at a time (more at once, on a busy
    // machine, can keep a command from reaching the server within its connect timeout).
    const [named, fromEnv] = await Promise.all([
      run(['--summarizer', 'scripted:summary.yaml'], join(dir, 'named')),
      run([], join(dir, 'env'), { WHARF_SUMMARIZER: `scripted:${join(dir, 'summary.yaml')}` }),
    ]);
    const [followed, none] = await Promise.all([
      run(['--model', 'echo'], join(dir, 'model')),
      run([], join(dir, 'none')),
    ]);
    expect(named.split('\n')[0]).toBe('--- Output Summary (108894 bytes) ---');
    expect(named).toContain('Counted from 1 to 20000; nothing failed.');

    expect(fromEnv).toContain('Counted from 1 to 20000; nothing failed.');

    // The echo summarizer shows what it was given: the task's head and tail.
    expect(followed).toContain('Echo model (offline): I was sent 2 messages');
    expect(followed).toContain('Task: Output of task build (108894 bytes in full):');

    expect(none.split('\n')[0]).toContain('No summarizer configured');
  });

  it('wharf run: a summarizer whose key is missing is refused before the run starts', async () => {
    const cli = await runWharf(
      [
        'run',
        'swarm.yaml',
        '--summarizer',
        'openai:gpt-4o-mini',
        '--address',
        address,
        '--data-dir',
        join(dir, 'nokey'),
      ],
      dir,
      { env },
    );
    expect(cli.code).toBe(2);
    expect(cli.stderr).toContain('summarizer: model "openai:gpt-4o-mini" needs OPENAI_API_KEY');
  });

  it('startEmbedded takes a summarizer model id', async () => {
    const dataDir = join(dir, 'embedded');
    const embedded = await startEmbedded({
      dataDir,
      temporalAddress: address,
      taskQueue: taskQueueFor('embedded-summarizer'),
      summarizer: `scripted:${join(dir, 'summary.yaml')}`,
    });
    try {
      const { workflowId } = await embedded.wharf.startSwarm(swarm, {}, { workdir: dir });
      const result = await embedded.wharf.result(workflowId);
      expect(result.status).toBe('completed');
      const outIds = result.tasks[0]?.outIds ?? [];
      const bodies = await Promise.all(
        outIds.map(async (outId) =>
          new TextDecoder().decode((await embedded.data.store.get({ outId })).body),
        ),
      );
      expect(bodies.find((text) => text.startsWith('--- Output Summary'))).toContain(
        'Counted from 1 to 20000; nothing failed.',
      );
    } finally {
      await embedded.stop();
    }
  });
});
