import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WharfClient } from '@wharf/orchestrator/client';
import { type DataDir, openDataDir } from '@wharf/orchestrator/embedded';
import { createModelRegistry } from '@wharf/orchestrator/node';
import { composeWorker } from '@wharf/orchestrator/worker';
import { OutputNotFoundError } from '@wharf/output-store';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { scriptedModel } from './scripted-model.js';
import { wharfBundle } from './swarm-env.js';
import { connectTestEnv, type TemporalTestEnv, taskQueueFor } from './temporal-env.js';
import { runWharf, wharfCliPath } from './wharf-cli.js';

const INSTANCES = 24;

/** A `wharf run --json` in a process of its own; `started` resolves with its workflow id. */
interface CliRun {
  child: ChildProcess;
  started: Promise<string>;
  exited: Promise<{ code: number; stdout: string; stderr: string }>;
}

// Two `wharf run` processes with data directories of their own on one Temporal server: each
// run's subagents run only on its own process's worker, so every output lands in its own store.
// And a worker given another data plane's work refuses it, non-retryably, naming both.
describe('one Temporal server, several data planes', () => {
  let dir: string;
  let address: string;
  let temporal: TemporalTestEnv;
  const children: ChildProcess[] = [];
  const opened: DataDir[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wharf-planes-'));
    address = inject('temporalAddress');
    temporal = await connectTestEnv();
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    for (const data of opened) await data.close();
    await temporal?.close();
    await rm(dir, { recursive: true, force: true });
  });

  function wharfRun(args: string[], env: Record<string, string>): CliRun {
    const child = spawn(process.execPath, [wharfCliPath, ...args, '--address', address], {
      cwd: dir,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    let stdout = '';
    let stderr = '';
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    const started = new Promise<string>((resolve, reject) => {
      child.stderr?.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        const match = /wharf: (?:started|resumed) (\S+)/.exec(stderr);
        if (match?.[1] !== undefined) resolve(match[1]);
      });
      child.once('close', () =>
        reject(new Error(`wharf ${args.join(' ')} ended before it started:\n${stderr}`)),
      );
    });
    started.catch(() => {}); // awaited by the tests that need it
    const exited = new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr })),
    );
    return { child, started, exited };
  }

  async function dataDir(name: string): Promise<DataDir> {
    const data = await openDataDir(join(dir, name), { env: {} });
    opened.push(data);
    return data;
  }

  it('two `wharf run` with their own data directories never take each other’s subagents', async () => {
    const gate = join(dir, 'gate');
    // Every instance waits behind the gate, opened once both commands poll for work.
    await writeFile(
      join(dir, 'fan.yaml'),
      [
        'name: fan',
        'tasks:',
        '  gate:',
        `    script: { content: 'for i in $(seq 1 1200); do [ -f "${gate}" ] && exit 0; sleep 0.05; done; exit 1' }`,
        '  fan:',
        '    depends_on: [gate]',
        `    loop: { type: repeat, count: ${INSTANCES} }`,
        '    script: { content: \'echo "instance $WHARF_INSTANCE of $WHARF_TEST_PLANE"\' }',
      ].join('\n'),
    );
    const runs = ['plane-a', 'plane-b'].map((plane) => ({
      plane,
      run: wharfRun(['run', 'fan.yaml', '--json', '--data-dir', plane], { WHARF_TEST_PLANE: plane }),
    }));
    const workflowIds = await Promise.all(runs.map(({ run }) => run.started));
    expect(new Set(workflowIds).size).toBe(2);
    await writeFile(gate, '');
    const ended = await Promise.all(runs.map(({ run }) => run.exited));
    const stores = await Promise.all(runs.map(({ plane }) => dataDir(plane)));
    for (const [index, { code, stdout, stderr }] of ended.entries()) {
      expect(code, stderr).toBe(0);
      const result = JSON.parse(stdout) as { status: string; outputs: Record<string, string[]> };
      expect(result.status).toBe('completed');
      const outIds = Object.values(result.outputs).flat();
      expect(outIds.length).toBeGreaterThanOrEqual(INSTANCES + 1);
      const own = stores[index] as DataDir;
      const other = stores[1 - index] as DataDir;
      const statIn = (data: DataDir, outId: string) =>
        data.store.stat({ outId }).catch((error: unknown) => {
          if (OutputNotFoundError.isNotFound(error)) return undefined;
          throw error;
        });
      const missing: string[] = [];
      const elsewhere: string[] = [];
      for (const outId of outIds) {
        const found = await statIn(own, outId);
        if (found === undefined) missing.push(outId);
        else expect(found.producer.runId).toBe(workflowIds[index]);
        if ((await statIn(other, outId)) !== undefined) elsewhere.push(outId);
      }
      expect(
        { missing: missing.length, elsewhere: elsewhere.length },
        `outputs of ${workflowIds[index]} not in its own store`,
      ).toEqual({ missing: 0, elsewhere: 0 });
      // Each command says where its subagents run and how to give the run a worker again.
      expect(stderr).toMatch(/its subagents run in this process \(task queue wharf-\d+-[0-9a-f]{12}\)/);
      expect(stderr).toContain(`wharf resume ${workflowIds[index]} --data-dir plane-`);
      // Every instance ran with its own command's environment.
      const { body } = await own.store.get({ outId: result.outputs.fan?.[INSTANCES - 1] as string });
      expect(Buffer.from(body).toString()).toBe(`instance ${INSTANCES - 1} of ${runs[index]?.plane}\n`);
    }
  });

  it('a worker of another data plane refuses a run’s script and agent tasks, once, naming both planes', async () => {
    const runPlane = (await dataDir('run-plane')).dataPlane;
    const taskQueue = taskQueueFor('foreign-plane');
    const parts = await composeWorker({
      dataDir: join(dir, 'foreign-plane'),
      env: {},
      models: createModelRegistry({ models: { 'mock:writer': scriptedModel([{ text: 'hi' }]) }, env: {} }),
    });
    const { worker, done } = await parts.startWorker({
      connection: temporal.nativeConnection,
      taskQueue,
      // The run's workflow bundle, built once: not bundled again for this worker.
      workerOptions: { workflowBundle: await wharfBundle() },
    });
    try {
      expect(parts.data.dataPlane.id).not.toBe(runPlane.id);
      const wharf = new WharfClient({
        connection: temporal.client.connection,
        taskQueue,
        dataPlane: runPlane,
      });
      const { workflowId } = await wharf.startSwarm(
        [
          'name: foreign',
          'agents:',
          '  writer: { model: "mock:writer" }',
          'tasks:',
          '  script: { script: { content: echo never } }',
          '  agent: { agent: writer, prompt: hello }',
        ].join('\n'),
      );
      const result = await wharf.result(workflowId);
      expect(result.status).toBe('failed');
      for (const task of result.tasks) {
        expect(task.status, task.task).toBe('failed');
        expect(task.reason).toContain(`the run belongs to ${runPlane.id} (${runPlane.description})`);
        expect(task.reason).toContain(
          `this worker to ${parts.data.dataPlane.id} (${parts.data.dataPlane.description})`,
        );
        expect(task.reason).not.toMatch(/password|secret/i);
      }
      // Refused at once, never retried, and nothing of the run was stored by the foreign worker.
      const history = await temporal.client.workflow.getHandle(workflowId).fetchHistory();
      const failures = (history.events ?? []).flatMap((event) =>
        event.activityTaskFailedEventAttributes ? [event.activityTaskFailedEventAttributes] : [],
      );
      expect(failures).toHaveLength(1);
      expect(failures[0]?.failure?.applicationFailureInfo).toMatchObject({
        type: 'WharfWrongDataPlane',
        nonRetryable: true,
      });
      const starts = (history.events ?? []).filter((event) => event.activityTaskStartedEventAttributes);
      expect(starts.map((event) => event.activityTaskStartedEventAttributes?.attempt)).toEqual([1]);
      expect(await parts.data.store.count({ runId: workflowId })).toBe(0);
      expect(await parts.data.store.count({ runId: `${workflowId}/agent/agent` })).toBe(0);
    } finally {
      worker.shutdown();
      await done;
      await parts.close();
    }
  });

  it('`wharf resume` gives a run whose `wharf run` died a worker again, on its own data plane only', async () => {
    await writeFile(
      join(dir, 'waits.yaml'),
      'name: waits\ntasks:\n  greet: { inputs: { who: †input.who }, script: { content: \'echo "hello $WHARF_INPUTS"\' } }\n',
    );
    const first = wharfRun(['run', 'waits.yaml', '--wait-for-inputs', '5m', '--data-dir', 'resumed'], {});
    const workflowId = await first.started;
    first.child.kill('SIGKILL');
    await first.exited;

    const resumed = wharfRun(['resume', workflowId, '--json', '--data-dir', 'resumed'], {});
    const [elsewhere, added] = await Promise.all([
      // Another data directory is another data plane: refused before its worker polls the run's queue.
      runWharf(['resume', workflowId, '--address', address, '--data-dir', 'plane-a'], dir),
      // `wharf input` needs a worker to take the update: the resumed one.
      runWharf(['input', workflowId, 'who=wharf', '--address', address], dir),
    ]);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toMatch(
      new RegExp(`${workflowId} belongs to data plane dp_[0-9a-f]{16} \\(store .*resumed/outputs\\.db`),
    );
    expect(elsewhere.stderr).toContain('but --data-dir plane-a is data plane');

    expect(added.code, added.stderr).toBe(0);
    const { code, stdout, stderr } = await resumed.exited;
    expect(code, stderr).toBe(0);
    expect(stderr).toContain(`wharf: resumed ${workflowId}`);
    const result = JSON.parse(stdout) as { status: string; outputs: Record<string, string[]> };
    expect(result.status).toBe('completed');
    const { body } = await (await dataDir('resumed')).store.get({
      outId: result.outputs.greet?.[0] as string,
    });
    expect(Buffer.from(body).toString()).toBe('hello {"who":"wharf"}\n');

    const again = await runWharf(['resume', workflowId, '--address', address, '--data-dir', 'resumed'], dir);
    expect(again.code).toBe(3);
    expect(again.stderr).toContain('is not running (completed): nothing to resume');
  });
});
