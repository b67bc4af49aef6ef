import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { wharfSearchAttributeKinds } from '@wharf/orchestrator';
import { WharfClient } from '@wharf/orchestrator/client';
import { type DevServer, startDevServer } from '@wharf/orchestrator/dev-server';
import { processGroupAlive } from '@wharf/stdio-limits';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runWharf, spawnWharf } from './wharf-cli.js';

// `wharf list` and `wharf cancel` / `terminate` (apps/cli/dist: `pnpm build` first) on a dev
// server of their own with Wharf's search attributes: a listed run is found by its attributes,
// a cancelled one stops its script and keeps what it stored.

async function until(condition: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

interface Listed {
  schema: string;
  runs: {
    workflowId: string;
    swarm: string | null;
    status: string;
    durationMs: number | null;
    tasks: { done: number; failed: number; total: number } | null;
  }[];
}

describe('wharf list, cancel and terminate', () => {
  let dir: string;
  let server: DevServer;
  let connection: Connection;
  let client: Client;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-list-cancel-'));
    server = await startDevServer({ ui: false, searchAttributes: wharfSearchAttributeKinds });
    connection = await Connection.connect({ address: server.address });
    client = new Client({ connection });
  });
  afterAll(async () => {
    await connection?.close();
    await server?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** `wharf list --json` with `args`, once the listing shows what `ready` wants (visibility lags a little). */
  async function list(args: string[], ready: (listed: Listed) => boolean): Promise<Listed> {
    let listed: Listed = { schema: '', runs: [] };
    for (let attempt = 0; attempt < 50; attempt++) {
      const run = await runWharf(['list', '--json', '--address', server.address, ...args], dir);
      expect(run.code, run.stderr).toBe(0);
      listed = JSON.parse(run.stdout) as Listed;
      if (ready(listed)) return listed;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return listed;
  }

  it('lists a running swarm by swarm and status, cancels it (its script stops, its stored output stays) and lists it as cancelled', async () => {
    await writeFile(
      join(dir, 'napper.yaml'),
      [
        'name: napper',
        'tasks:',
        "  first: { script: { content: 'echo kept' } }",
        '  nap:',
        '    depends_on: [first]',
        "    script: { content: 'echo $$ > nap.pid; sleep 60 & wait' }",
      ].join('\n'),
    );
    const run = spawnWharf(['run', 'napper.yaml', '--address', server.address, '--data-dir', 'data'], dir);
    const workflowId = (await run.waitFor(/started (\S+)/))[1] as string;
    await until(() => existsSync(join(dir, 'nap.pid')), 60_000);
    const scriptGroup = Number(readFileSync(join(dir, 'nap.pid'), 'utf8'));

    // Listed with its task counts from the memo once the first task is done.
    const running = await list(['--swarm', 'napper'], (listed) =>
      listed.runs.some((entry) => entry.workflowId === workflowId && entry.tasks?.done === 1),
    );
    expect(running.schema).toBe('wharf.list/v1');
    expect(running.runs).toEqual([
      expect.objectContaining({
        workflowId,
        swarm: 'napper',
        status: 'running',
        durationMs: null,
        tasks: { done: 1, failed: 0, total: 2 },
      }),
    ]);
    expect((await list(['--swarm', 'other'], () => true)).runs).toEqual([]);
    expect((await list(['--status', 'completed'], () => true)).runs).toEqual([]);
    const table = await runWharf(['list', '--address', server.address], dir);
    expect(table.stdout).toMatch(new RegExp(`^${workflowId}\\s+napper\\s+running\\s+.*\\s1/2 done$`, 'm'));

    const cancelled = await runWharf(
      ['cancel', workflowId, '--address', server.address, '--wait', '30s', '--by', 'ana'],
      dir,
    );
    expect(cancelled.code, cancelled.stderr).toBe(0);
    expect(cancelled.stdout).toContain(`wharf: ${workflowId} cancelled`);
    expect((await client.workflow.getHandle(workflowId).describe()).status.name).toBe('CANCELLED');
    // The script was stopped as on Ctrl-C; the output stored before stays.
    await until(() => !processGroupAlive(scriptGroup), 30_000);
    const outputs = await runWharf(
      ['outputs', 'list', '--run', workflowId, '--json', '--data-dir', 'data'],
      dir,
    );
    expect(outputs.stdout).toContain('"task": "first"');
    // The `wharf run` that followed it says so and exits 1 (the swarm did not complete).
    expect((await run.exited).code).toBe(1);
    expect(run.output().stderr).toContain(
      `wharf: ${workflowId} was cancelled (\`wharf cancel\`); what it stored stays`,
    );
    expect(run.output().stderr).not.toContain('unexpected error');
    expect(run.output().stderr).not.toContain('[WARN]');

    const listedCancelled = await list(['--status', 'cancelled'], (listed) => listed.runs.length > 0);
    expect(listedCancelled.runs).toEqual([
      expect.objectContaining({
        workflowId,
        status: 'cancelled',
        tasks: expect.objectContaining({ total: 2 }),
      }),
    ]);
    // Every task is counted as it ended: the one stopped in flight is cancelled (counted with
    // the failed), never done.
    expect(listedCancelled.runs[0]?.tasks).toEqual({ done: 1, failed: 1, total: 2 });
    expect(
      (await runWharf(['list', '--address', server.address, '--status', 'cancelled'], dir)).stdout,
    ).toMatch(new RegExp(`^${workflowId}\\s+napper\\s+cancelled\\s+.*\\s1/2 done, 1 failed$`, 'm'));
    // The memo records who cancelled and when; `wharf status` says it.
    const { memo } = await client.workflow.getHandle(workflowId).describe();
    expect(memo).toMatchObject({ cancelledBy: 'ana', cancelledAt: expect.stringMatching(/^\d{4}-/) });
    const status = await runWharf(
      ['status', workflowId, '--address', server.address, '--data-dir', 'data'],
      dir,
    );
    expect(status.stdout).toContain(`napper: cancelled by ana at ${String(memo?.cancelledAt)}`);
    const again = await runWharf(['cancel', workflowId, '--address', server.address], dir);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`${workflowId} has already ended (cancelled): nothing to cancel`);
    const unknown = await runWharf(['cancel', 'no-such-run', '--address', server.address], dir);
    expect(unknown.code).toBe(3);
  });

  it('a run no worker serves: cancel says it ends once one runs it, terminate ends it at once', async () => {
    const wharf = new WharfClient({ connection, taskQueue: 'nobody-polls-this' });
    const { workflowId } = await wharf.startSwarm(
      'name: unserved\ntasks:\n  a: { script: { content: echo } }\n',
    );
    const asked = await runWharf(['cancel', workflowId, '--address', server.address, '--wait', '1s'], dir);
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.stdout).toContain(`cancellation of ${workflowId} requested; it still runs`);
    expect(asked.stdout).toContain(`wharf terminate ${workflowId}`);
    const ended = await runWharf(
      ['terminate', workflowId, '--address', server.address, '--reason', 'no worker', '--json'],
      dir,
    );
    expect(ended.code, ended.stderr).toBe(0);
    expect(JSON.parse(ended.stdout)).toEqual({
      workflowId,
      requested: 'terminate',
      status: 'terminated',
      ended: true,
    });
  });
});
